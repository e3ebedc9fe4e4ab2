package dev.warden.benchmark;

import java.time.Duration;
import java.util.List;

import dev.warden.Warden;
import dev.warden.WardenDefaults;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.DefaultClientResources;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** One library under test, seen through the few operations the scenarios need. */
interface LockClient extends AutoCloseable {

	String label();

	/** Takes the reentrant lock for the calling thread, waiting as long as it takes. */
	void lock(String key);

	void unlock(String key);

	/** Takes the fair lock for the calling thread. */
	void lockFair(String key);

	void unlockFair(String key);

	/**
	 * Takes the library's plain mutex for the calling thread: Warden's simple lock; Redisson has
	 * no lock that is not reentrant, so its reentrant lock stands in.
	 */
	void lockSimple(String key);

	void unlockSimple(String key);

	@Override
	void close();

	static LockClient warden(String uri) {
		return warden(RedisClient.create(uri));
	}

	/** Warden on a Redis Cluster, through a Lettuce cluster client that knows these nodes. */
	static LockClient wardenOnCluster(List<String> uris) {
		return warden(RedisClusterClient.create(uris.stream().map(RedisURI::create).toList()));
	}

	/** Warden's command connections ({@code --connections=}); 0 for the client's default. */
	int[] CONNECTIONS = { 0 };

	/**
	 * How many I/O threads Warden's calls on different keys spread over: its command connections,
	 * each served by one of the Lettuce client's I/O threads, of which there are as many as cores (at
	 * least two).
	 */
	static int connectionsInUse() {
		int connections = (CONNECTIONS[0] > 0) ? CONNECTIONS[0]
				: WardenDefaults.connections(Runtime.getRuntime().availableProcessors());
		return Math.min(connections, DefaultClientResources.DEFAULT_IO_THREADS);
	}

	/** {@code builder} with the command connections {@code --connections=} asks for, if any. */
	static Warden.Builder withConnections(Warden.Builder builder) {
		return (CONNECTIONS[0] > 0) ? builder.connections(CONNECTIONS[0]) : builder;
	}

	private static LockClient warden(AbstractRedisClient redis) {
		Warden warden = withConnections(Warden.builder(redis)).build();
		return new LockClient() {
			@Override
			public String label() {
				return "Warden";
			}

			@Override
			public void lock(String key) {
				warden.getLock(key).lock();
			}

			@Override
			public void unlock(String key) {
				warden.getLock(key).unlock();
			}

			@Override
			public void lockFair(String key) {
				warden.getFairLock(key).lock();
			}

			@Override
			public void unlockFair(String key) {
				warden.getFairLock(key).unlock();
			}

			@Override
			public void lockSimple(String key) {
				warden.getSimpleLock(key).lock();
			}

			@Override
			public void unlockSimple(String key) {
				warden.getSimpleLock(key).unlock();
			}

			@Override
			public void close() {
				warden.close();
				redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		};
	}

	static LockClient redisson(String uri) {
		Config config = Transport.redissonConfig();
		config.useSingleServer().setAddress(uri);
		return redisson(config);
	}

	/** Redisson on a Redis Cluster, in its cluster mode with these nodes. */
	static LockClient redissonOnCluster(List<String> uris) {
		Config config = Transport.redissonConfig();
		config.useClusterServers().addNodeAddress(uris.toArray(String[]::new));
		return redisson(config);
	}

	private static LockClient redisson(Config config) {
		RedissonClient redisson = Redisson.create(config);
		return new LockClient() {
			@Override
			public String label() {
				return "Redisson";
			}

			@Override
			public void lock(String key) {
				redisson.getLock(key).lock();
			}

			@Override
			public void unlock(String key) {
				redisson.getLock(key).unlock();
			}

			@Override
			public void lockFair(String key) {
				redisson.getFairLock(key).lock();
			}

			@Override
			public void unlockFair(String key) {
				redisson.getFairLock(key).unlock();
			}

			@Override
			public void lockSimple(String key) {
				lock(key);
			}

			@Override
			public void unlockSimple(String key) {
				unlock(key);
			}

			@Override
			public void close() {
				redisson.shutdown();
			}
		};
	}

}
