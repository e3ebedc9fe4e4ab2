package dev.warden.compat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import dev.warden.test.redis.RedisNode;

/**
 * The last release of Warden, running {@link VersionDriver} in a JVM of its own on one Redis with the
 * test: its class path is the last release's jars (built from this repository's history by
 * {@code .release/last-release.sh}, copied to the root's {@code target/last-release}), the driver, and
 * every library of these tests but Warden's own modules. Without a release's jars it fails, naming
 * what is missing: the suite never runs against this version in the last release's place.
 */
final class OtherVersion implements AutoCloseable {

	private static final Duration ANSWER = Duration.ofSeconds(60);

	private final Process process;

	private final Writer input;

	private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

	private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

	/** What the other JVM wrote besides its answers and events: its log. */
	private final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());

	private OtherVersion(Process process) {
		this.process = process;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(this::read, "other-version-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts the last release on {@code redis}.
	 * @param name names its log file
	 * @return it, ready for commands
	 */
	static OtherVersion lastRelease(String name, RedisNode redis) throws Exception {
		List<String> classPath = new ArrayList<>(releaseJars());
		classPath.add(System.getProperty("warden.compat.driver"));
		classPath.addAll(List.of(Files.readString(Path.of(System.getProperty("warden.compat.libraries")))
			.trim().split(java.io.File.pathSeparator)));
		List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx192m",
				"-cp", String.join(java.io.File.pathSeparator, classPath), VersionDriver.class.getName(), redis.host(),
				Integer.toString(redis.port()));
		Path logs = Files.createDirectories(Path.of("target", "other-version"));
		OtherVersion other = new OtherVersion(new ProcessBuilder(command)
			.redirectError(ProcessBuilder.Redirect.to(logs.resolve(name + ".log").toFile()))
			.start());
		String ready = other.answers.poll(ANSWER.toSeconds(), TimeUnit.SECONDS);
		if (!"ready".equals(ready)) {
			other.close();
			throw new IllegalStateException("The last release did not start (" + ready + "): see target/other-version/"
					+ name + ".log and its output " + other.log);
		}
		return other;
	}

	/** The last release's jars of the modules the driver needs, each checked to hold Warden's classes. */
	static List<String> releaseJars() throws IOException {
		Path release = Path.of(System.getProperty("warden.compat.release"));
		List<String> jars = new ArrayList<>();
		for (String module : List.of("warden-spring-boot-autoconfigure", "warden-kotlin")) {
			Path jar = release.resolve(module + ".jar");
			if (!Files.isRegularFile(jar)) {
				throw new IllegalStateException("No jar of the last release at " + jar + ": the build's "
						+ ".release/last-release.sh puts them there; build through the root (mvn -pl compat -am)");
			}
			jars.add(jar.toString());
		}
		try (JarFile autoconfigure = new JarFile(jars.get(0))) {
			if (autoconfigure.getEntry("dev/warden/Warden.class") == null) {
				throw new IllegalStateException("The last release's jar " + jars.get(0) + " is empty: RELEASES records "
						+ "no release, and the mixed-version suite needs one");
			}
		}
		return jars;
	}

	/** The version in the release's record ({@code target/last-release/release.txt}), for messages. */
	static String releaseVersion() throws IOException {
		Path record = Path.of(System.getProperty("warden.compat.release"), "release.txt");
		return Files.isRegularFile(record) ? Files.readString(record).trim() : "the last release";
	}

	/**
	 * Runs one command and returns its answer.
	 * @throws IllegalStateException when the command failed there, or no answer came in time
	 */
	String call(String command) throws InterruptedException {
		send(command);
		String answer = answers.poll(ANSWER.toSeconds(), TimeUnit.SECONDS);
		if (answer == null) {
			throw new IllegalStateException("No answer to '" + command + "' within " + ANSWER + " (alive: "
					+ process.isAlive() + "); its log: " + log);
		}
		if (answer.startsWith("!")) {
			throw new IllegalStateException("'" + command + "' failed in the last release: " + answer.substring(2));
		}
		return answer;
	}

	/** The next event (a line that started with {@code > }), or {@code null} after {@code timeout}. */
	String nextEvent(Duration timeout) throws InterruptedException {
		return events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** The events so far, without waiting. */
	List<String> drainEvents() {
		List<String> drained = new ArrayList<>();
		events.drainTo(drained);
		return drained;
	}

	/** Its log lines at ERROR so far. */
	List<String> errors() {
		synchronized (log) {
			return log.stream().filter(line -> line.contains(" ERROR ")).toList();
		}
	}

	/** Its log lines at WARN so far. */
	List<String> warnings() {
		synchronized (log) {
			return log.stream().filter(line -> line.contains(" WARN ")).toList();
		}
	}

	private void send(String line) {
		try {
			input.write(line + "\n");
			input.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The last release's JVM no longer reads its input; its log: " + log, ex);
		}
	}

	private void read() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			reader.lines().forEach(line -> {
				if (line.startsWith("= ") || line.startsWith("! ")) {
					answers.add(line.startsWith("= ") ? line.substring(2) : line);
				}
				else if (line.startsWith("> ")) {
					events.add(line.substring(2));
				}
				else {
					log.add(line);
				}
			});
		}
		catch (IOException | UncheckedIOException ex) {
			// Its output ended with it.
		}
	}

	@Override
	public void close() throws InterruptedException {
		if (process.isAlive()) {
			try {
				send("quit");
			}
			catch (UncheckedIOException ex) {
				// Gone already.
			}
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

}
