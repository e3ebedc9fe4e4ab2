package dev.warden.test.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server for a test: a new cluster ({@code initdb}) in a temporary directory,
 * started on a free loopback port with trust authentication, and stopped and deleted when closed.
 * The binaries are those of Debian's {@code postgresql} package ({@code /usr/lib/postgresql/<n>/bin},
 * the newest), or of the directory named by {@code WARDEN_POSTGRES_BIN}. PostgreSQL refuses to run
 * as root, so as root (CI) it runs as the package's {@code postgres} user.
 */
public final class PostgresServer implements AutoCloseable {

	private static final long COMMAND_SECONDS = 120;

	private final Path bin;

	private final Path directory;

	private final int port;

	private final boolean asPostgres;

	private PostgresServer(Path bin, Path directory, int port, boolean asPostgres) {
		this.bin = bin;
		this.directory = directory;
		this.port = port;
		this.asPostgres = asPostgres;
	}

	/**
	 * Creates and starts a server.
	 * @throws IllegalStateException when PostgreSQL is not installed (naming the package) or does not
	 * start (with its log)
	 */
	public static PostgresServer start() {
		Path bin = binaries();
		if (bin == null) {
			throw new IllegalStateException("PostgreSQL is not installed: this test needs Debian's postgresql package "
					+ "(apt-get install postgresql), or WARDEN_POSTGRES_BIN naming a directory with initdb and pg_ctl");
		}
		boolean root = "root".equals(System.getProperty("user.name"));
		try {
			Path directory = Files.createTempDirectory("warden-postgres-");
			if (root) {
				run(List.of("chown", "postgres", directory.toString()));
			}
			PostgresServer server = new PostgresServer(bin, directory, freePort(), root);
			server.command("initdb", "-D", server.data().toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
					"--no-sync");
			server.command("pg_ctl", "start", "-w", "-t", "60", "-D", server.data().toString(), "-l",
					directory.resolve("postgres.log").toString(), "-o", "-p " + server.port + " -k " + directory
							+ " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off");
			Runtime.getRuntime().addShutdownHook(new Thread(server::stopQuietly));
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start PostgreSQL", ex);
		}
	}

	/** The JDBC URL of its {@code postgres} database. */
	public String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
	}

	/** The superuser, who needs no password here. */
	public String user() {
		return "postgres";
	}

	@Override
	public void close() {
		stopQuietly();
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory left behind.
		}
	}

	private void stopQuietly() {
		if (Files.exists(data().resolve("postmaster.pid"))) {
			try {
				command("pg_ctl", "stop", "-m", "immediate", "-w", "-D", data().toString());
			}
			catch (RuntimeException ex) {
				// Already stopped.
			}
		}
	}

	private Path data() {
		return directory.resolve("data");
	}

	private void command(String tool, String... args) {
		List<String> command = new ArrayList<>();
		if (asPostgres) {
			command.addAll(List.of("runuser", "-u", "postgres", "--"));
		}
		command.add(bin.resolve(tool).toString());
		command.addAll(List.of(args));
		run(command);
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(output));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted running " + command, ex);
		}
	}

	private static @Nullable Path binaries() {
		String named = System.getenv("WARDEN_POSTGRES_BIN");
		if (named != null && !named.isBlank()) {
			return Path.of(named);
		}
		Path root = Path.of("/usr/lib/postgresql");
		if (!Files.isDirectory(root)) {
			return null;
		}
		try (Stream<Path> versions = Files.list(root)) {
			return versions.filter(version -> Files.isExecutable(version.resolve("bin").resolve("initdb")))
				.max(Comparator.comparing(version -> versionNumber(version.getFileName().toString())))
				.map(version -> version.resolve("bin"))
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static int versionNumber(String name) {
		try {
			return Integer.parseInt(name);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
