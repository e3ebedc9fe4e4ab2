package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.RedisChannels;
import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AsyncLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void acquiresFreeLockAndHoldsItUnderTheWatchdog() throws Exception {
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();
		DistributedReentrantLock lock = warden.getLock("async-free");

		assertThat(lock.tryLockAsync(owner, 0, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.isHeldBy(owner)).isTrue();
		assertThat(warden.activeLeaseRenewals()).isEqualTo(1);
		lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void waiterAcquiresWhenTheHolderReleases() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getLock("async-wait");
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();
		holder.lock(60, TimeUnit.SECONDS);

		CompletableFuture<Boolean> waiting = warden.getLock("async-wait").tryLockAsync(owner, 30, 5, TimeUnit.SECONDS);
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{async-wait}", 1);
		assertThat(waiting).isNotDone();
		holder.unlock();

		assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(warden.getLock("async-wait").isHeldBy(owner)).isTrue();
		assertThat(warden.getLock("async-wait").remainingTimeToLive()).isBetween(1L, 5_000L);
		assertThat(warden.subscribedChannels()).isZero();
	}

	@Test
	void givesUpAfterTheWait() throws Exception {
		clients.open(redis.node()).getLock("async-busy").lock();
		Warden warden = clients.open(redis.node());

		long start = System.nanoTime();
		assertThat(warden.getLock("async-busy").tryLockAsync(warden.newOwner(), 300, TimeUnit.MILLISECONDS)
			.get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(300L, 1_800L);
		assertThat(warden.subscribedChannels()).isZero();
	}

	@Test
	void cancelledWaitLeavesNoSubscriptionAndKeepsNoHold() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getLock("async-cancel");
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();
		holder.lock();

		CompletableFuture<Boolean> waiting = warden.getLock("async-cancel").tryLockAsync(owner, 30, TimeUnit.SECONDS);
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{async-cancel}", 1);
		waiting.cancel(false);
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{async-cancel}", 0);
		holder.unlock();

		// A try already sent when the wait was cancelled may still win once the holder is gone; the
		// acquisition then gives that win back by itself.
		assertThat(waiting).isCancelled();
		DistributedReentrantLock lock = warden.getLock("async-cancel");
		Eventually.await("a late win given back", () -> !lock.isLocked());
		assertThat(lock.isHeldBy(owner)).isFalse();
		assertThat(warden.subscribedChannels()).isZero();
	}

	@Test
	void manyAsyncOwnersTakeTurnsWithoutOverlap() throws Exception {
		Warden first = clients.open(redis.node());
		Warden second = clients.open(redis.node());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger turns = new AtomicInteger();
		List<CompletableFuture<Void>> all = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			Warden warden = (i % 2 == 0) ? first : second;
			DistributedReentrantLock lock = warden.getLock("async-turns");
			LockOwner owner = warden.newOwner();
			all.add(lock.tryLockAsync(owner, 60, TimeUnit.SECONDS).thenCompose(acquired -> {
				assertThat(acquired).isTrue();
				if (inside.incrementAndGet() != 1) {
					overlaps.incrementAndGet();
				}
				turns.incrementAndGet();
				inside.decrementAndGet();
				return lock.unlockAsync(owner);
			}));
		}
		CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(turns).hasValue(40);
		assertThat(overlaps).hasValue(0);
		assertThat(first.subscribedChannels() + second.subscribedChannels()).isZero();
	}

	@Test
	void redisDownFailsTheFutureWithinTheCommandTimeout() {
		Warden warden = clients.open(redis.node(), options -> options.commandTimeout(Duration.ofMillis(300)));
		redis.node().stop();

		CompletableFuture<Boolean> attempt = warden.getLock("async-down").tryLockAsync(warden.newOwner(), 0,
				TimeUnit.SECONDS);
		assertThatThrownBy(() -> attempt.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RedisUnavailableException.class);
	}

}
