package dev.warden.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis 8 and Valkey 8 evict scripts loaded by {@code EVAL} (an LRU of 500), and an operator may
 * flush the script cache: Warden's scripts answer {@code NOSCRIPT} then, under load, and every
 * call still succeeds, each script loaded again by whoever meets it.
 */
class ScriptCacheFlushTests {

	private static final int WORKERS = 8;

	private static final int CALLS = 150;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newFixedThreadPool(WORKERS + 1);

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void locksAndSchedulesSucceedWhileTheScriptCacheIsFlushedUnderThem() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("flushed", String.class);
		AtomicBoolean working = new AtomicBoolean(true);
		AtomicInteger flushes = new AtomicInteger();
		Future<?> flusher = threads.submit(() -> {
			// Bounded in count as in time: the workers end the loop when they are done.
			while (working.get() && flushes.get() < 100_000) {
				redis.node().call("SCRIPT", "FLUSH");
				flushes.incrementAndGet();
			}
		});
		List<Future<?>> workers = new ArrayList<>();
		for (int worker = 0; worker < WORKERS; worker++) {
			int number = worker;
			workers.add(threads.submit(() -> {
				LockOwner owner = warden.newOwner();
				DistributedReentrantLock lock = warden.getLock("flushed-" + (number % 2));
				for (int call = 0; call < CALLS; call++) {
					if (!lock.tryLock(owner, 30, TimeUnit.SECONDS)) {
						throw new AssertionError("Not acquired within 30 s");
					}
					lock.unlock(owner);
					queue.schedule(number + "-" + call, "x", Duration.ofHours(1));
				}
				return null;
			}));
		}
		try {
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			working.set(false);
			flusher.get(30, TimeUnit.SECONDS);
		}

		assertThat(queue.size()).as("every schedule stored").isEqualTo((long) WORKERS * CALLS);
		assertThat(flushes.get()).as("flushes while the calls ran").isGreaterThan(10);
		assertThat(redis.node().call("EXISTS", "flushed-0")).isEqualTo(0L);
	}

}
