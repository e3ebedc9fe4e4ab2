package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.RedisChannels;
import dev.warden.RedissonExtension;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RLock;

import static org.assertj.core.api.Assertions.assertThat;

class FairLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final RedissonExtension redisson = new RedissonExtension(redis);

	@RegisterExtension
	final WardenClients clients = new WardenClients();


	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void tenWaitersQueuedInAKnownOrderAcquireInThatOrder() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getFairLock("fair");
		holder.lock();
		List<Warden> waiters = List.of(clients.open(redis.node()), clients.open(redis.node()));
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<Future<?>> running = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			int position = i;
			DistributedReentrantLock lock = waiters.get(i % 2).getFairLock("fair");
			running.add(threads.submit(() -> {
				assertThat(lock.tryLock(60, TimeUnit.SECONDS)).isTrue();
				order.add(position);
				lock.unlock();
				return null;
			}));
			Eventually.await("waiter " + i + " queued", () -> queueLength("fair") == position + 1);
		}
		holder.unlock();
		for (Future<?> waiter : running) {
			waiter.get(60, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
		assertThat(queueLength("fair")).isZero();
	}

	@Test
	void aWaiterWhoseProcessDiedBlocksThoseBehindOnlyUntilItsDeadline() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.fairLockWaiterTimeout(Duration.ofMillis(300)));
		DistributedReentrantLock holder = warden.getFairLock("orphaned");
		holder.lock();
		// A waiter of a process that is gone: queued first, with a deadline, and nobody to take its turn.
		long now = redisMillis();
		redis.node().call("RPUSH", "redisson_lock_queue:{orphaned}", "gone:1");
		redis.node().call("ZADD", "redisson_lock_timeout:{orphaned}", Long.toString(now + 800), "gone:1");

		DistributedReentrantLock behind = clients.open(redis.node()).getFairLock("orphaned");
		Future<Boolean> waiting = threads.submit(() -> behind.tryLock(20, TimeUnit.SECONDS));
		Eventually.await("queued behind the dead waiter", () -> queueLength("orphaned") == 2);
		holder.unlock();

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(redisMillis()).isGreaterThanOrEqualTo(now + 800);
		assertThat(queueLength("orphaned")).isZero();
	}

	@Test
	void tryingOnceDoesNotQueueAndAWaiterThatGivesUpLeaves() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getFairLock("brief");
		holder.lock();
		DistributedReentrantLock other = clients.open(redis.node()).getFairLock("brief");
		assertThat(threads.submit(() -> other.tryLock()).get()).isFalse();
		assertThat(queueLength("brief")).isZero();
		assertThat(threads.submit(() -> other.tryLock(200, TimeUnit.MILLISECONDS)).get()).isFalse();
		assertThat(queueLength("brief")).isZero();
		assertThat((Long) redis.node().call("ZCARD", "redisson_lock_timeout:{brief}")).isZero();
		holder.unlock();
	}

	@Test
	void interoperatesWithRedissonFairLock() throws Exception {
		RLock theirs = redisson.client().getFairLock("shared-fair");
		DistributedReentrantLock ours = clients.open(redis.node()).getFairLock("shared-fair");
		ExecutorService redissonThread = Executors.newSingleThreadExecutor();
		try {
			redissonThread.submit(() -> theirs.lock(60, TimeUnit.SECONDS)).get();
			Future<Boolean> ourWaiter = threads.submit(() -> {
				boolean acquired = ours.tryLock(20, TimeUnit.SECONDS);
				if (acquired) {
					ours.unlock();
				}
				return acquired;
			});
			Eventually.await("queued", () -> queueLength("shared-fair") == 1);
			long released = System.nanoTime();
			redissonThread.submit((Runnable) theirs::unlock).get();
			assertThat(ourWaiter.get(5, TimeUnit.SECONDS)).isTrue();
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(2_000);

			ExecutorService ourThread = Executors.newSingleThreadExecutor();
			try {
				ourThread.submit(() -> ours.lock(60, TimeUnit.SECONDS)).get();
				Future<Boolean> theirWaiter = redissonThread.submit(() -> {
					boolean acquired = theirs.tryLock(20, 10, TimeUnit.SECONDS);
					if (acquired) {
						theirs.unlock();
					}
					return acquired;
				});
				Eventually.await("Redisson queued", () -> queueLength("shared-fair") == 1);
				ourThread.submit((Runnable) ours::unlock).get();
				assertThat(theirWaiter.get(5, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				ourThread.shutdownNow();
			}
		}
		finally {
			redissonThread.shutdownNow();
		}
		RedisChannels.awaitNoChannels(redis.node(), "redisson_lock__channel:{shared-fair}*");
	}

	private static long queueLength(String name) {
		return (Long) redis.node().call("LLEN", "redisson_lock_queue:{" + name + "}");
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
