package dev.warden.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * One real {@code redis-server} process on a loopback port.
 * <p>
 * A node keeps its port and its data directory for its whole life, so it can be stopped and
 * started again on the same port (with its AOF, when {@link Config#appendOnly(boolean)} is on),
 * which is what fault tests need. Its log stays under {@link #directory()} after the test.
 *
 * <pre>{@code
 * try (RedisNode node = RedisNode.start(RedisNode.config())) {
 *     RedisClient client = RedisClient.create(node.uri());
 *     ...
 * }
 * }</pre>
 */
public final class RedisNode implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private final Config config;

	private final Path binary;

	private final Path directory;

	private final ProcessReaper reaper;

	private final String name;

	private int port;

	private @Nullable Process process;

	private RedisNode(Config config) {
		this.config = config;
		Path work = workDirectory();
		this.binary = (config.server != null) ? config.server : RedisBinary.locate(work);
		this.reaper = ProcessReaper.get(work);
		this.name = config.name + "-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
		this.directory = work.resolve("nodes").resolve(this.name);
	}

	/** The harness's work directory, where bundled binaries are extracted and nodes keep their files. */
	static Path work() {
		return workDirectory();
	}

	/** A fresh configuration: no persistence, a name of {@code redis}. */
	public static Config config() {
		return new Config();
	}

	/** Starts a node with the default configuration. */
	public static RedisNode start() {
		return start(config());
	}

	/** Starts a node on a free loopback port and waits until it answers {@code PING}. */
	public static RedisNode start(Config config) {
		RedisNode node = new RedisNode(config);
		try {
			Files.createDirectories(node.directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		node.startOnFreePort();
		return node;
	}

	/** The harness work directory: {@code target/redis-harness} of the module under test. */
	static Path workDirectory() {
		return Path.of(System.getProperty("warden.redis-harness.dir", "target/redis-harness")).toAbsolutePath();
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return port;
	}

	/** A {@code redis://} URI for this node. */
	public String uri() {
		return "redis://" + HOST + ":" + port;
	}

	/** The node's working directory: its log ({@code redis.log}) and its data files. */
	public Path directory() {
		return directory;
	}

	public Path logFile() {
		return directory.resolve("redis.log");
	}

	String name() {
		return name;
	}

	/** The server's process id while it runs. */
	public synchronized long pid() {
		Process running = this.process;
		if (running == null) {
			throw new IllegalStateException(name + " is not running");
		}
		return running.pid();
	}

	public synchronized boolean isRunning() {
		return process != null && process.isAlive();
	}

	/**
	 * Sends one command over a plain socket and returns the reply, for test set-up and checks
	 * ({@code CONFIG SET}, {@code SCRIPT FLUSH}, {@code DEBUG SLEEP}...).
	 */
	public Object call(String... command) {
		try {
			return Resp.call(HOST, port, 10_000, command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Command " + String.join(" ", command) + " failed on " + uri(), ex);
		}
	}

	/**
	 * Waits until this node, a replica, has finished its sync with its master ({@code
	 * master_link_status:up}): a replica that is still loading acknowledges no {@code WAIT}.
	 */
	public void awaitInSync() {
		Processes.await("the replica " + this + " in sync with its master", Duration.ofSeconds(60), () -> {
			try {
				return String.valueOf(call("INFO", "replication")).contains("master_link_status:up");
			}
			catch (UncheckedIOException ex) {
				// A node changing role drops its connections meanwhile.
				return false;
			}
		});
	}

	/** Stops the server's process ({@code SIGSTOP}): it keeps its connections and answers nothing. */
	public void pause() {
		signal("STOP");
	}

	/** Lets a paused server run again ({@code SIGCONT}). */
	public void resume() {
		signal("CONT");
	}

	private void signal(String signal) {
		Processes.signal(pid(), signal);
	}

	/** Stops the server gracefully (SIGTERM), then forcibly if it does not exit in time. */
	public void stop() {
		terminate(false);
	}

	/** Kills the server at once (SIGKILL), as a crash would: nothing is flushed. */
	public void kill() {
		terminate(true);
	}

	private synchronized void terminate(boolean forcibly) {
		Process running = this.process;
		if (running == null) {
			return;
		}
		if (forcibly) {
			running.destroyForcibly();
		}
		else {
			running.destroy();
		}
		awaitExit(running, Duration.ofSeconds(10));
		this.process = null;
		reaper.unregister(this);
	}

	/** Starts the server again on the same port with the same data directory. */
	public synchronized void restart() {
		stop();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		// The port can stay busy for a moment after the old process exits; retry until free.
		while (true) {
			try {
				launch();
				return;
			}
			catch (PortInUseException ex) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Port " + port + " stayed in use after " + name + " stopped", ex);
				}
				sleepQuietly(50);
			}
		}
	}

	@Override
	public void close() {
		stop();
	}

	@Override
	public String toString() {
		return name + "@" + uri();
	}

	private synchronized void startOnFreePort() {
		for (int attempt = 1;; attempt++) {
			port = freePort();
			try {
				launch();
				return;
			}
			catch (PortInUseException ex) {
				if (attempt == 5) {
					throw new IllegalStateException("Could not find a free port for " + name, ex);
				}
			}
		}
	}

	private void launch() {
		List<String> command = new ArrayList<>();
		command.add(binary.toString());
		if (config.sentinelConfig != null) {
			// A Sentinel needs a configuration file it can rewrite; a restart keeps what it learnt.
			Path file = directory.resolve("sentinel.conf");
			try {
				if (!Files.exists(file)) {
					Files.writeString(file, config.sentinelConfig, StandardCharsets.UTF_8);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			command.addAll(List.of(file.toString(), "--sentinel"));
		}
		command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--protected-mode", "no",
				"--daemonize", "no", "--dir", directory.toString(), "--logfile", logFile().toString(), "--save", "",
				"--appendonly", config.appendOnly ? "yes" : "no"));
		for (String[] option : config.options) {
			command.add("--" + option[0]);
			for (int i = 1; i < option.length; i++) {
				command.add(option[i]);
			}
		}
		Process started;
		try {
			started = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("stdout.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + binary, ex);
		}
		this.process = started;
		reaper.register(this, started.pid());
		awaitReady(started);
	}

	private void awaitReady(Process started) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		IOException last = null;
		while (System.nanoTime() < deadline) {
			if (!started.isAlive()) {
				this.process = null;
				reaper.unregister(this);
				String log = readLog();
				if (log.contains("Address already in use")) {
					throw new PortInUseException(log);
				}
				throw new IllegalStateException("redis-server " + name + " exited with " + started.exitValue()
						+ " while starting; log " + logFile() + ":\n" + log);
			}
			try {
				if ("PONG".equals(Resp.call(HOST, port, 1000, "PING"))) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet, or still loading its data set.
				last = ex;
			}
			sleepQuietly(10);
		}
		kill();
		throw new IllegalStateException("redis-server " + name + " did not answer PING within " + START_TIMEOUT
				+ (last != null ? " (" + last.getMessage() + ")" : "") + "; log " + logFile() + ":\n" + readLog());
	}

	private String readLog() {
		StringBuilder log = new StringBuilder();
		for (Path file : List.of(logFile(), directory.resolve("stdout.log"))) {
			try {
				if (Files.exists(file)) {
					log.append(Files.readString(file, StandardCharsets.UTF_8));
				}
			}
			catch (IOException ex) {
				log.append("(cannot read ").append(file).append(": ").append(ex.getMessage()).append(")");
			}
		}
		return log.toString();
	}

	private static void awaitExit(Process process, Duration timeout) {
		try {
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free loopback port", ex);
		}
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	/** How to start a node. */
	public static final class Config {

		private String name = "redis";

		private boolean appendOnly;

		private final List<String[]> options = new ArrayList<>();

		private @Nullable String sentinelConfig;

		private @Nullable Path server;

		private Config() {
		}

		/**
		 * Runs this {@code redis-server} instead of the one {@link RedisBinary} finds (the server
		 * matrix tests run each of theirs on every server of {@link RedisServers}).
		 */
		public Config server(@Nullable Path executable) {
			this.server = executable;
			return this;
		}

		/**
		 * Runs the node as a Sentinel that monitors {@code master} under {@code masterName}, and
		 * declares it down after a second without answers.
		 * @param quorum how many Sentinels must agree that the master is down
		 */
		public Config sentinelOf(String masterName, RedisNode master, int quorum) {
			this.sentinelConfig = "sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " "
					+ quorum + "\n" + "sentinel down-after-milliseconds " + masterName + " 1000\n"
					+ "sentinel failover-timeout " + masterName + " 5000\n" + "sentinel parallel-syncs " + masterName
					+ " 1\n";
			return this;
		}

		/** A name for the node's directory and log, to tell nodes of one test apart. */
		public Config name(String name) {
			this.name = name;
			return this;
		}

		/** Whether the node keeps an append-only file ({@code appendonly yes}), surviving restarts. */
		public Config appendOnly(boolean appendOnly) {
			this.appendOnly = appendOnly;
			return this;
		}

		/** Any other {@code redis.conf} directive, passed on the command line. */
		public Config option(String directive, String... values) {
			String[] option = new String[values.length + 1];
			option[0] = directive;
			System.arraycopy(values, 0, option, 1, values.length);
			options.add(option);
			return this;
		}

	}

	private static final class PortInUseException extends RuntimeException {

		PortInUseException(String log) {
			super(log);
		}

	}

}
