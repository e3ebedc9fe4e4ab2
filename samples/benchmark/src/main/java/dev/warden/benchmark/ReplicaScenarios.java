package dev.warden.benchmark;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;

/**
 * What the replica check costs where it is on by default: a master with one replica, and two Warden
 * clients on it, one with the defaults (each acquisition and schedule waits for the replica's
 * {@code WAIT}) and one with the check off, in slices that alternate. The columns are
 * {@value #CHECKED} and {@value #UNCHECKED}.
 */
final class ReplicaScenarios {

	static final String CHECKED = "replica check (default)";

	static final String UNCHECKED = "check off";

	private static final int SLICES = 8;

	private final long runNanos;

	ReplicaScenarios(long runMillis) {
		this.runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis);
	}

	void writes(Report report) throws Exception {
		try (RedisNode master = RedisNode.start(RedisNode.config().name("bench-master"));
				RedisNode replica = RedisNode.start(RedisNode.config()
					.name("bench-replica")
					.option("replicaof", master.host(), Integer.toString(master.port())))) {
			replica.awaitInSync();
			RedisClient client = RedisClient.create(master.uri());
			try (Warden checked = Warden.builder(client).build();
					Warden unchecked = Warden.builder(client)
						.replicaSync(0, Duration.ofSeconds(1))
						.taskReplicaSync(0, Duration.ofSeconds(1))
						.build()) {
				AtomicLong ids = new AtomicLong();
				DelayedQueue<String> checkedQueue = checked.getDelayedQueue("bench-replicated", String.class);
				DelayedQueue<String> uncheckedQueue = unchecked.getDelayedQueue("bench-replicated", String.class);
				for (int threads : new int[] { 1, 8 }) {
					String callers = threads + (threads == 1 ? " thread" : " threads");
					Alternation.measure(report, new Metric("schedules, " + callers + ": schedules/s", true),
							new Metric("schedules, " + callers + ": client CPU per schedule (µs)", false), runNanos, SLICES,
							CHECKED, nanos -> Alternation.calls(
									thread -> checkedQueue.schedule("t-" + ids.incrementAndGet(), "x", Duration.ofHours(1)),
									threads, nanos),
							UNCHECKED, nanos -> Alternation.calls(
									thread -> uncheckedQueue.schedule("t-" + ids.incrementAndGet(), "x", Duration.ofHours(1)),
									threads, nanos));
					Alternation.measure(report, new Metric("lock and unlock, " + callers + ": pairs/s", true),
							new Metric("lock and unlock, " + callers + ": client CPU per pair (µs)", false), runNanos,
							SLICES, CHECKED, nanos -> Alternation.calls(thread -> pair(checked, thread), threads, nanos),
							UNCHECKED, nanos -> Alternation.calls(thread -> pair(unchecked, thread), threads, nanos));
				}
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

	/** One acquisition and release of a lock of the caller's own. */
	private static void pair(Warden warden, int thread) throws InterruptedException {
		DistributedReentrantLock lock = warden.getLock("bench-replicated-" + thread);
		LockOwner owner = warden.currentThreadOwner();
		if (!lock.tryLock(owner, 10, 30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Not acquired: " + lock.getName());
		}
		lock.unlock(owner);
	}

}
