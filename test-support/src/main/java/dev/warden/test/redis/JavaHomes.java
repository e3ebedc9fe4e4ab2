package dev.warden.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a Java installation of at least a given version, for a test that must run on a newer Java
 * than the build's (virtual threads need 21). Looked for, in order: the environment variable
 * {@code WARDEN_TEST_JAVA_HOME}, the running Java, then the JDKs under {@code /usr/lib/jvm}, newest
 * first.
 */
public final class JavaHomes {

	/** The environment variable that names the Java installation to use. */
	public static final String VARIABLE = "WARDEN_TEST_JAVA_HOME";

	private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

	private JavaHomes() {
	}

	/**
	 * A Java installation whose major version is at least {@code feature}.
	 * @param feature the least major version, {@code 21} for instance
	 * @return its home, or empty when none is found
	 */
	public static Optional<Path> atLeast(int feature) {
		String named = System.getenv(VARIABLE);
		if (named != null && !named.isBlank()) {
			Path home = Path.of(named);
			if (version(home) < feature) {
				throw new IllegalStateException(VARIABLE + "=" + named + " is not a Java " + feature + " or later");
			}
			return Optional.of(home);
		}
		if (Runtime.version().feature() >= feature) {
			return Optional.of(Path.of(System.getProperty("java.home")));
		}
		Path installed = Path.of("/usr/lib/jvm");
		if (!Files.isDirectory(installed)) {
			return Optional.empty();
		}
		try (Stream<Path> homes = Files.list(installed)) {
			return homes.filter(home -> !Files.isSymbolicLink(home) && version(home) >= feature)
				.max(Comparator.comparingInt(JavaHomes::version));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The major version in a Java home's {@code release} file; 0 when it has none. */
	static int version(Path home) {
		Path release = home.resolve("release");
		if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin").resolve("java"))) {
			return 0;
		}
		try {
			Matcher matcher = VERSION.matcher(Files.readString(release));
			return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

}
