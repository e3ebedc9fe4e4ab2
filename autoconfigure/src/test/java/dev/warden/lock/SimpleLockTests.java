package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.RedisChannels;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.WardenDefaults;
import dev.warden.WardenException;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The plain mutex: one string key holding the owner's id, not reentrant, with the lease, watchdog,
 * fencing tokens and wake-ups of every other lock.
 */
class SimpleLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void theLockIsOneStringHoldingTheOwnerWithTheLeaseAsItsExpiry() {
		Warden warden = clients.open(redis.node());
		DistributedSimpleLock lock = warden.getSimpleLock("simple");

		lock.lock();
		assertThat(redis.node().call("TYPE", "simple")).isEqualTo("string");
		assertThat(redis.node().call("GET", "simple")).isEqualTo(warden.currentThreadOwner().id());
		assertThat(lock.remainingTimeToLive()).isBetween(1L, WardenDefaults.WATCHDOG_TIMEOUT.toMillis());
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.isLocked()).isTrue();
		assertThat(warden.activeLeaseRenewals()).isEqualTo(1);

		lock.unlock();
		assertThat(redis.node().call("EXISTS", "simple")).isEqualTo(0L);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.remainingTimeToLive()).isEqualTo(-2);
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void aSecondAcquisitionByTheHolderFailsAtOnceAndKeepsTheFirstHold() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedSimpleLock lock = warden.getSimpleLock("not-reentrant");
		lock.lock();

		assertThatIllegalStateException().isThrownBy(lock::tryLock)
			.withMessageContaining("'not-reentrant'")
			.withMessageContaining("not reentrant");
		assertThatIllegalStateException().isThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS));
		assertThatIllegalStateException().isThrownBy(lock::lock);
		LockOwner owner = warden.newOwner();
		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).as("another owner of the same client").isFalse();

		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).as("one release frees it").isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	@Test
	void anAsynchronousSecondAcquisitionByTheHolderFailsToo() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedSimpleLock lock = warden.getSimpleLock("not-reentrant-async");
		LockOwner owner = warden.newOwner();
		assertThat(lock.tryLockAsync(owner, 0, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS)).isTrue();

		CompletableFuture<Boolean> again = lock.tryLockAsync(owner, 5, TimeUnit.SECONDS);
		assertThat(again).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(java.util.concurrent.ExecutionException.class)
			.withCauseInstanceOf(IllegalStateException.class);
		lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aWaiterInAnotherServiceIsWokenByTheReleaseLongBeforeTheLeaseEnds() throws Exception {
		DistributedSimpleLock held = clients.open(redis.node()).getSimpleLock("wake");
		DistributedSimpleLock other = clients.open(redis.node()).getSimpleLock("wake");
		held.lock(60, TimeUnit.SECONDS);
		Future<Boolean> waiting = threads.submit(() -> other.tryLock(30, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{wake}", 1);

		long released = System.nanoTime();
		held.unlock();
		assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the message, not the lease")
			.isLessThan(Duration.ofSeconds(30));
		assertThat(held.isLocked()).isTrue();
	}

	@Test
	void leaseExpiryFreesTheLockAndTheFormerHoldersUnlockFails() throws Exception {
		DistributedSimpleLock held = clients.open(redis.node()).getSimpleLock("lease");
		DistributedSimpleLock other = clients.open(redis.node()).getSimpleLock("lease");
		assertThat(held.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
		assertThat(held.remainingTimeToLive()).isBetween(1L, 300L);

		assertThat(threads.submit(() -> other.tryLock(10, TimeUnit.SECONDS)).get()).isTrue();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(held::unlock)
			.withMessageContaining("'lease'");
		assertThat(held.isLocked()).as("the successor's hold is untouched").isTrue();
	}

	@Test
	void theWatchdogKeepsALockWithoutLeaseAlivePastItsTimeout() throws Exception {
		Duration watchdog = Duration.ofMillis(300);
		Warden owner = clients.open(redis.node(), options -> options.watchdogTimeout(watchdog));
		DistributedSimpleLock lock = owner.getSimpleLock("simple-watchdog");
		lock.lock();

		DistributedSimpleLock contender = clients.open(redis.node()).getSimpleLock("simple-watchdog");
		assertThat(threads.submit(() -> contender.tryLock(3 * watchdog.toMillis(), TimeUnit.MILLISECONDS)).get())
			.isFalse();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(owner.activeLeaseRenewals()).isZero();
	}

	@Test
	void fencingTokensIncreaseAcrossHoldersAndServices() throws Exception {
		DistributedSimpleLock first = clients.open(redis.node()).getSimpleLock("fenced");
		DistributedSimpleLock second = clients.open(redis.node()).getSimpleLock("fenced");

		long one = first.lockWithToken();
		first.unlock();
		OptionalLong two = threads.submit(() -> {
			OptionalLong token = second.tryLockWithToken(5, TimeUnit.SECONDS);
			second.unlock();
			return token;
		}).get();
		long three = first.lockWithToken();
		first.unlock();

		assertThat(two).isPresent();
		assertThat(one).isPositive().isLessThan(two.getAsLong());
		assertThat(two.getAsLong()).isLessThan(three);
	}

	@Test
	void aNameHeldAsAReentrantLockRefusesASimpleLockAndSaysWhy() {
		Warden warden = clients.open(redis.node());
		warden.getLock("kinds").lock();

		assertThatExceptionOfType(WardenException.class).isThrownBy(() -> warden.getSimpleLock("kinds").tryLock())
			.withMessageContaining("WRONGTYPE")
			.withMessageContaining("'kinds'");
	}

	@Test
	void forceUnlockFreesTheLockAndWakesWaiters() throws Exception {
		DistributedSimpleLock held = clients.open(redis.node()).getSimpleLock("forced");
		DistributedSimpleLock other = clients.open(redis.node()).getSimpleLock("forced");
		held.lock();
		Future<Boolean> waiting = threads.submit(() -> other.tryLock(30, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{forced}", 1);

		assertThat(other.forceUnlock()).isTrue();
		assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(held::unlock);
	}

	@Test
	void ownersOfTwoServicesTakeTheLockOneAtATime() throws Exception {
		DistributedSimpleLock[] services = { clients.open(redis.node()).getSimpleLock("contended"),
				clients.open(redis.node()).getSimpleLock("contended") };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		int rounds = 50;
		List<Future<?>> workers = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			DistributedSimpleLock lock = services[w % 2];
			workers.add(threads.submit(() -> {
				for (int i = 0; i < rounds; i++) {
					assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
					try {
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						// A round trip while inside, so that an overlap would last long enough to be seen.
						assertThat(lock.isHeldByCurrentThread()).isTrue();
						inside.decrementAndGet();
					}
					finally {
						lock.unlock();
					}
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(most.get()).isEqualTo(1);
		assertThat(services[0].isLocked()).isFalse();
	}

}
