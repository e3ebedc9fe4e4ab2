package dev.warden.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes sure no {@code redis-server} outlives the JVM that started it.
 * <p>
 * Every running server has a pid file in a directory owned by this JVM. A JVM shutdown hook stops
 * the servers still registered; when the JVM is killed outright (no hook runs), a small shell
 * process started here notices the JVM is gone and kills every pid left in that directory.
 */
final class ProcessReaper {

	private static final String REAPER_SCRIPT = """
			jvm="$1"; dir="$2"
			while kill -0 "$jvm" 2>/dev/null; do sleep 1; done
			for f in "$dir"/*.pid; do
			  [ -f "$f" ] || continue
			  kill -9 "$(cat "$f")" 2>/dev/null
			  rm -f "$f"
			done
			""";

	private final Path pidDirectory;

	private final Set<RedisNode> running = ConcurrentHashMap.newKeySet();

	private ProcessReaper(Path pidDirectory) {
		this.pidDirectory = pidDirectory;
	}

	/** The reaper of this JVM, started on first use. */
	static ProcessReaper get(Path workDirectory) {
		return Holder.instance(workDirectory);
	}

	void register(RedisNode node, long pid) {
		running.add(node);
		try {
			Files.writeString(pidFile(node), Long.toString(pid), StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	void unregister(RedisNode node) {
		running.remove(node);
		try {
			Files.deleteIfExists(pidFile(node));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Path pidFile(RedisNode node) {
		return pidDirectory.resolve(node.name() + ".pid");
	}

	private void start() throws IOException {
		Files.createDirectories(pidDirectory);
		new ProcessBuilder("sh", "-c", REAPER_SCRIPT, "warden-redis-reaper",
				Long.toString(ProcessHandle.current().pid()), pidDirectory.toString())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			for (RedisNode node : running) {
				node.kill();
			}
		}, "warden-redis-harness-shutdown"));
	}

	// The reaper is one per JVM by nature: it guards the JVM's own child processes.
	private static final class Holder {

		private static ProcessReaper reaper;

		static synchronized ProcessReaper instance(Path workDirectory) {
			if (reaper == null) {
				ProcessReaper created = new ProcessReaper(
						workDirectory.resolve("pids-" + ProcessHandle.current().pid()));
				try {
					created.start();
				}
				catch (IOException ex) {
					throw new UncheckedIOException("Cannot start the redis-server reaper", ex);
				}
				reaper = created;
			}
			return reaper;
		}

	}

}
