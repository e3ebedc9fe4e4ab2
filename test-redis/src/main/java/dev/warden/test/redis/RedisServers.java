package dev.warden.test.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Redis servers the server matrix tests run on: the 6.2 bundled in the embedded-redis jar, and
 * Debian's 7.0, which {@code autoconfigure/src/test/redis/ensure-redis-servers.sh} unpacks under
 * {@code ${WARDEN_REDIS_CACHE:-~/.cache/warden}/redis-7.0} (the build runs it before the tests).
 */
public final class RedisServers {

	/**
	 * One server.
	 *
	 * @param version the version it must report ({@code redis_version}), as a prefix
	 * @param executable its {@code redis-server}
	 */
	public record Server(String version, Path executable) {

		@Override
		public String toString() {
			return "Redis " + version;
		}

	}

	private RedisServers() {
	}

	/** Every server of the matrix. */
	public static List<Server> all() {
		return List.of(bundled(), debian());
	}

	/** The 6.2 bundled in the embedded-redis jar. */
	public static Server bundled() {
		return new Server("6.2", RedisBinary.bundled());
	}

	/**
	 * Debian's 7.0, unpacked by the build.
	 * @throws IllegalStateException naming the script when it is not there
	 */
	public static Server debian() {
		String cache = System.getenv("WARDEN_REDIS_CACHE");
		Path directory = (cache != null && !cache.isBlank()) ? Path.of(cache)
				: Path.of(System.getProperty("user.home"), ".cache", "warden");
		Path executable = directory.resolve("redis-7.0").resolve("redis-server");
		if (!Files.isExecutable(executable)) {
			throw new IllegalStateException("No Redis 7.0 at " + executable + ": run "
					+ "autoconfigure/src/test/redis/ensure-redis-servers.sh (the build does, with apt-get)");
		}
		return new Server("7.0", executable);
	}

}
