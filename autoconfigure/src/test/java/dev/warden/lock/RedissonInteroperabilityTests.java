package dev.warden.lock;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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

/**
 * A service on Redisson and a service on Warden guard the same resource, as during a migration.
 */
class RedissonInteroperabilityTests {

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
	void redissonHoldExcludesWarden() throws Exception {
		RLock theirs = redisson.client().getLock("shared");
		DistributedReentrantLock ours = clients.open(redis.node()).getLock("shared");
		onOwnThread(() -> {
			theirs.lock();
			return null;
		});

		assertThat(ours.tryLock()).isFalse();
		assertThat(ours.isLocked()).isTrue();
		assertThat(ours.remainingTimeToLive()).isPositive();
		onOwnThread(() -> {
			theirs.forceUnlock();
			return null;
		});
		assertThat(ours.tryLock()).isTrue();
		ours.unlock();
	}

	@Test
	void wardenHoldExcludesRedissonAndReentersOnlyForItsOwner() throws Exception {
		RLock theirs = redisson.client().getLock("shared");
		DistributedReentrantLock ours = clients.open(redis.node()).getLock("shared");
		ours.lock();

		assertThat(onOwnThread(() -> theirs.tryLock())).isFalse();
		assertThat(onOwnThread(() -> theirs.isLocked())).isTrue();
		assertThat(onOwnThread(() -> theirs.isHeldByCurrentThread())).isFalse();
		ours.unlock();
		assertThat(onOwnThread(() -> {
			boolean acquired = theirs.tryLock();
			theirs.unlock();
			return acquired;
		})).isTrue();
	}

	@Test
	void wardenWaiterIsWokenPromptlyWhenRedissonUnlocks() throws Exception {
		RLock theirs = redisson.client().getLock("handoff-to-warden");
		Warden warden = clients.open(redis.node());
		DistributedReentrantLock ours = warden.getLock("handoff-to-warden");
		ExecutorService redissonSide = Executors.newSingleThreadExecutor();
		try {
			redissonSide.submit(() -> theirs.lock(60, TimeUnit.SECONDS)).get();
			Future<Long> acquiredAt = threads.submit(() -> {
				assertThat(ours.tryLock(30, TimeUnit.SECONDS)).isTrue();
				return System.nanoTime();
			});
			RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{handoff-to-warden}", 1);
			long releasedAt = System.nanoTime();
			redissonSide.submit(theirs::unlock).get();

			long handoffMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
			assertThat(handoffMillis).isLessThan(2_000);
		}
		finally {
			redissonSide.shutdownNow();
		}
	}

	@Test
	void redissonWaiterIsWokenPromptlyWhenWardenUnlocks() throws Exception {
		RLock theirs = redisson.client().getLock("handoff-to-redisson");
		DistributedReentrantLock ours = clients.open(redis.node()).getLock("handoff-to-redisson");
		ours.lock(60, TimeUnit.SECONDS);

		Future<Long> acquiredAt = threads.submit(() -> {
			assertThat(theirs.tryLock(30, 10, TimeUnit.SECONDS)).isTrue();
			long at = System.nanoTime();
			theirs.unlock();
			return at;
		});
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{handoff-to-redisson}", 1);
		long releasedAt = System.nanoTime();
		ours.unlock();

		long handoffMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
		assertThat(handoffMillis).isLessThan(2_000);
	}

	@Test
	void mixedClientsLoseNoIncrement() throws Exception {
		DistributedReentrantLock ours = clients.open(redis.node()).getLock("mixed-counter");
		RLock theirs = redisson.client().getLock("mixed-counter");
		var counter = clients.redisClient(redis.node()).connect().sync();
		Future<?> wardenSide = threads.submit(() -> {
			for (int i = 0; i < 300; i++) {
				ours.lock();
				try {
					counter.set("mixed", Integer.toString(parse(counter.get("mixed")) + 1));
				}
				finally {
					ours.unlock();
				}
			}
			return null;
		});
		Future<?> redissonSide = threads.submit(() -> {
			for (int i = 0; i < 300; i++) {
				theirs.lock();
				try {
					counter.set("mixed", Integer.toString(parse(counter.get("mixed")) + 1));
				}
				finally {
					theirs.unlock();
				}
			}
			return null;
		});
		wardenSide.get(2, TimeUnit.MINUTES);
		redissonSide.get(2, TimeUnit.MINUTES);
		assertThat(redis.node().call("GET", "mixed")).isEqualTo("600");
	}

	private static int parse(String value) {
		return (value == null) ? 0 : Integer.parseInt(value);
	}

	private <T> T onOwnThread(java.util.concurrent.Callable<T> action) throws Exception {
		return threads.submit(action).get(30, TimeUnit.SECONDS);
	}

}
