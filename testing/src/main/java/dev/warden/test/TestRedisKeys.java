package dev.warden.test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.KeyScan;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The keys {@link TaskClock#reset()} deletes, and whether it may: Warden's own keys, found with
 * {@code SCAN} on every master and removed with {@code UNLINK} in batches, on the Redis that
 * {@link WardenTest} started, or on another only when {@value #RESET_SHARED_REDIS} allows it.
 */
final class TestRedisKeys {

	/** Allows {@link TaskClock#reset()} on a Redis that {@link WardenTest} did not start. */
	static final String RESET_SHARED_REDIS = "warden.test.reset-shared-redis";

	/** More key patterns (Redis globs) that {@link TaskClock#reset()} deletes: the test's own keys. */
	static final String RESET_KEYS = "warden.test.reset-keys";

	/** How many keys one {@code UNLINK} takes at most, and the {@code COUNT} hint of each {@code SCAN}. */
	static final int BATCH = 500;

	private final List<String> patterns;

	private final boolean sharedAllowed;

	private final @Nullable TestRedis testRedis;

	/**
	 * @param namespace {@code warden.namespace}: the tasks, rate limiters and clock offset deleted are
	 * in it, and no other application's
	 * @param lockKeyPrefix {@code warden.lock.key-prefix} in effect: the annotated locks' keys start
	 * with it; blank, no lock key is deleted
	 * @param more the test's own key patterns
	 * @param sharedAllowed whether a Redis {@link WardenTest} did not start may be reset
	 * @param testRedis the Redis {@link WardenTest} started for this context, if it did
	 */
	TestRedisKeys(KeyNamespace namespace, String lockKeyPrefix, List<String> more, boolean sharedAllowed,
			@Nullable TestRedis testRedis) {
		Set<String> patterns = new LinkedHashSet<>();
		patterns.add(KeyScan.escape(namespace.taskPrefix()) + "*");
		patterns.add(KeyScan.escape(namespace.ratePrefix()) + "*");
		patterns.add(KeyScan.escape(namespace.clockOffsetKey()));
		if (!lockKeyPrefix.isBlank()) {
			// The lock itself, the keys it derives from its name in its hash tag, the fair locks' queues
			// and timeouts. Not the fencing counters: one counts for every lock of its hash slot, the
			// application's other locks among them, and a token must never go back.
			String prefix = KeyScan.escape(lockKeyPrefix);
			patterns.add(prefix + "*");
			patterns.add("{" + prefix + "*");
			patterns.add("redisson_lock_queue:{" + prefix + "*");
			patterns.add("redisson_lock_timeout:{" + prefix + "*");
		}
		for (String pattern : more) {
			if (!pattern.isBlank()) {
				patterns.add(pattern.trim());
			}
		}
		this.patterns = List.copyOf(patterns);
		this.sharedAllowed = sharedAllowed;
		this.testRedis = testRedis;
	}

	/** The patterns of the keys deleted, Redis globs. */
	List<String> patterns() {
		return patterns;
	}

	/**
	 * Refuses a Redis that {@link WardenTest} did not start, unless {@value #RESET_SHARED_REDIS}: the
	 * server is told by its {@code run_id}, so an application whose connection points elsewhere is
	 * refused even when the test's Redis runs.
	 * @param connection a connection to the application's Redis
	 * @throws IllegalStateException when refused, saying how to allow it
	 */
	void requireResettable(RedisConnection connection) {
		if (isResettable(connection)) {
			return;
		}
		throw new IllegalStateException("TaskClock.reset() refused to delete keys: the application's Redis is not the "
				+ "one @WardenTest started (the test sets spring.data.redis.*), and it may be shared with other "
				+ "services, whose Warden keys would go too. Leave spring.data.redis.* unset so that @WardenTest "
				+ "starts a Redis of its own, or set " + RESET_SHARED_REDIS + "=true to reset this one (only the keys "
				+ "matching " + patterns + " are deleted)");
	}

	/**
	 * Whether the application's Redis may be reset: {@value #RESET_SHARED_REDIS} allows it, or it is
	 * the one {@link WardenTest} started, told by its {@code run_id}.
	 * @param connection a connection to the application's Redis
	 * @return whether its keys may be deleted
	 */
	boolean isResettable(RedisConnection connection) {
		if (sharedAllowed) {
			return true;
		}
		String started = (testRedis != null) ? testRedis.runId() : null;
		return started != null && started.equals(runId(connection));
	}

	/**
	 * Whether {@link #isResettable} may be true, known without a connection: false when {@link WardenTest}
	 * started no Redis for this context and {@value #RESET_SHARED_REDIS} is off.
	 * @return whether to ask
	 */
	boolean mayBeResettable() {
		return sharedAllowed || testRedis != null;
	}

	/**
	 * Deletes the keys matching the patterns, on every master.
	 * @param connection a connection to the application's Redis
	 * @return how many were deleted
	 */
	long delete(RedisConnection connection) {
		long deleted = 0;
		for (String pattern : patterns) {
			ScanOptions options = ScanOptions.scanOptions().match(pattern).count(BATCH).build();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						try (Cursor<byte[]> keys = cluster.scan(node, options)) {
							deleted += unlink(connection, keys, true);
						}
					}
				}
			}
			else {
				try (Cursor<byte[]> keys = connection.keyCommands().scan(options)) {
					deleted += unlink(connection, keys, false);
				}
			}
		}
		return deleted;
	}

	/** Unlinks the keys in batches; in a Cluster, each batch by hash slot. */
	private static long unlink(RedisConnection connection, Cursor<byte[]> keys, boolean cluster) {
		long deleted = 0;
		List<byte[]> batch = new ArrayList<>(BATCH);
		while (keys.hasNext()) {
			batch.add(keys.next());
			if (batch.size() == BATCH) {
				deleted += unlinkBatch(connection, batch, cluster);
				batch.clear();
			}
		}
		if (!batch.isEmpty()) {
			deleted += unlinkBatch(connection, batch, cluster);
		}
		return deleted;
	}

	private static long unlinkBatch(RedisConnection connection, List<byte[]> batch, boolean cluster) {
		if (!cluster) {
			return count(connection.keyCommands().unlink(batch.toArray(new byte[0][])));
		}
		Map<Integer, List<byte[]>> bySlot = new HashMap<>();
		for (byte[] key : batch) {
			bySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(key), slot -> new ArrayList<>()).add(key);
		}
		long deleted = 0;
		for (List<byte[]> keys : bySlot.values()) {
			deleted += count(connection.keyCommands().unlink(keys.toArray(new byte[0][])));
		}
		return deleted;
	}

	private static long count(@Nullable Long unlinked) {
		return (unlinked != null) ? unlinked : 0;
	}

	/** The server's {@code run_id}, or {@code null} when it does not say ({@code INFO} refused, a Cluster). */
	private static @Nullable String runId(RedisConnection connection) {
		try {
			Properties info = connection.serverCommands().info("server");
			return (info != null) ? info.getProperty("run_id") : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
