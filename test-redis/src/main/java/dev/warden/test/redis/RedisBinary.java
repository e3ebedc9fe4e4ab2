package dev.warden.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds the {@code redis-server} executable the harness runs.
 * <p>
 * In order: the {@code WARDEN_REDIS_SERVER} environment variable, {@code redis-server} on the
 * {@code PATH}, then the binary bundled in the embedded-redis jar, extracted once under
 * {@code target/redis-harness/bin}.
 */
public final class RedisBinary {

	private static final String EXECUTABLE = "redis-server";

	private RedisBinary() {
	}

	/** The system property that names the {@code redis-server} to run, like the environment variable. */
	public static final String SERVER_PROPERTY = "warden.redis-server";

	/**
	 * Returns the path of a runnable {@code redis-server}: the one named by the
	 * {@code WARDEN_REDIS_SERVER} environment variable or the {@value #SERVER_PROPERTY} system
	 * property, else the one on the {@code PATH}, else the bundled one, extracted if needed.
	 * @param workDirectory the harness's work directory, where a bundled binary is extracted
	 * @return the executable to run
	 */
	public static Path locate(Path workDirectory) {
		String explicit = System.getenv("WARDEN_REDIS_SERVER");
		String named = "WARDEN_REDIS_SERVER";
		if (explicit == null || explicit.isBlank()) {
			explicit = System.getProperty(SERVER_PROPERTY);
			named = SERVER_PROPERTY;
		}
		if (explicit != null && !explicit.isBlank()) {
			Path path = Path.of(explicit);
			if (!Files.isExecutable(path)) {
				throw new IllegalStateException(named + "=" + explicit + " is not an executable file");
			}
			return path;
		}
		Path onPath = findOnPath();
		return (onPath != null) ? onPath : extractBundled(workDirectory.resolve("bin"));
	}

	private static Path findOnPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(java.io.File.pathSeparator)) {
			if (directory.isEmpty()) {
				continue;
			}
			Path candidate = Path.of(directory, EXECUTABLE);
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	/** The binary bundled in the embedded-redis jar, extracted under the harness's work directory. */
	public static Path bundled() {
		return extractBundled(RedisNode.work().resolve("bin"));
	}

	private static Path extractBundled(Path binDirectory) {
		String resource = bundledResourceName();
		Path target = binDirectory.resolve(resource);
		if (Files.isExecutable(target)) {
			return target;
		}
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and the embedded-redis jar has no "
						+ resource + " on the classpath");
			}
			Files.createDirectories(binDirectory);
			// Write to a private temporary file first: parallel JVMs may extract at the same time.
			Path temporary = Files.createTempFile(binDirectory, resource, ".tmp");
			Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
			if (!temporary.toFile().setExecutable(true)) {
				throw new IllegalStateException("Cannot make " + temporary + " executable");
			}
			Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract the bundled redis-server to " + target, ex);
		}
	}

	private static String bundledResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		if (os.contains("linux")) {
			if (arm) {
				return "redis-server-6.2.7-linux-arm64";
			}
			return (arch.contains("64")) ? "redis-server-6.2.6-v5-linux-amd64" : "redis-server-6.2.7-linux-386";
		}
		if (os.contains("mac") || os.contains("darwin")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		throw new IllegalStateException("No bundled redis-server for " + os + "/" + arch
				+ "; put redis-server on the PATH or set WARDEN_REDIS_SERVER");
	}

}
