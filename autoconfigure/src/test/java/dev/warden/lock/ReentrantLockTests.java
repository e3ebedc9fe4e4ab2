package dev.warden.lock;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.RedisChannels;
import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.WardenDefaults;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReentrantLockTests {

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
	void holdCountGoesUpAndDownInRedissonLayout() {
		Warden warden = clients.open(redis.node());
		DistributedReentrantLock lock = warden.getLock("reentrant");

		lock.lock();
		lock.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThat(redis.node().call("HGET", "reentrant", warden.currentThreadOwner().id())).isEqualTo("2");
		assertThat(warden.currentThreadOwner().id())
			.isEqualTo(warden.getClientId() + ":" + Thread.currentThread().getId());
		assertThat(lock.remainingTimeToLive()).isBetween(1L, WardenDefaults.WATCHDOG_TIMEOUT.toMillis());

		lock.unlock();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(lock.isLocked()).isFalse();
		assertThat(lock.remainingTimeToLive()).isEqualTo(-2);
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void otherThreadOfSameClientIsExcluded() throws Exception {
		DistributedReentrantLock lock = clients.open(redis.node()).getLock("threads");
		lock.lock();
		assertThat(threads.submit(() -> lock.tryLock()).get()).isFalse();
		assertThat(threads.submit(() -> lock.isHeldByCurrentThread()).get()).isFalse();
		lock.unlock();
		assertThat(threads.submit(() -> lock.tryLock()).get()).isTrue();
	}

	@Test
	void leaseExpiryReleasesTheLock() throws Exception {
		DistributedReentrantLock held = clients.open(redis.node()).getLock("lease");
		DistributedReentrantLock other = clients.open(redis.node()).getLock("lease");
		assertThat(held.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
		assertThat(held.remainingTimeToLive()).isBetween(1L, 300L);

		assertThat(threads.submit(() -> other.tryLock(10, TimeUnit.SECONDS)).get()).isTrue();
		assertThat(held.isHeldByCurrentThread()).isFalse();
		assertThatThrownBy(held::unlock).isInstanceOf(IllegalMonitorStateException.class);
	}

	@Test
	void watchdogKeepsLockWithoutLeaseAliveForThreeTimeouts() throws Exception {
		Duration watchdog = Duration.ofMillis(300);
		Warden owner = clients.open(redis.node(), options -> options.watchdogTimeout(watchdog));
		DistributedReentrantLock lock = owner.getLock("watchdog");
		lock.lock();
		assertThat(owner.activeLeaseRenewals()).isEqualTo(1);

		DistributedReentrantLock contender = clients.open(redis.node()).getLock("watchdog");
		long start = System.nanoTime();
		boolean acquired = threads.submit(() -> contender.tryLock(3 * watchdog.toMillis(), TimeUnit.MILLISECONDS))
			.get();
		assertThat(acquired).isFalse();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(900);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.remainingTimeToLive()).isPositive();
		lock.unlock();
		assertThat(owner.activeLeaseRenewals()).isZero();
	}

	@Test
	void closedClientsLeasedLockFreesWhenItsLeaseRunsOut() throws Exception {
		// A lock held with a lease of its own outlives its client's close (one held under the
		// watchdog is released by the close): it frees when the lease runs out.
		Warden closing = clients.open(redis.node());
		closing.getLock("abandoned").lock(600, TimeUnit.MILLISECONDS);
		clients.close(closing);

		DistributedReentrantLock survivor = clients.open(redis.node()).getLock("abandoned");
		assertThat(survivor.isLocked()).isTrue();
		// No release message comes: the waiter sleeps for the lease that its failed attempt reported,
		// not for its whole wait.
		long start = System.nanoTime();
		assertThat(threads.submit(() -> survivor.tryLock(60, TimeUnit.SECONDS)).get()).isTrue();
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(10);
	}

	@Test
	void tryLockGivesUpWithinTheWait() throws Exception {
		clients.open(redis.node()).getLock("busy").lock();
		DistributedReentrantLock contender = clients.open(redis.node()).getLock("busy");

		long start = System.nanoTime();
		assertThat(threads.submit(() -> contender.tryLock(300, TimeUnit.MILLISECONDS)).get()).isFalse();
		long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(elapsed).isBetween(300L, 300L + 1500L);
	}

	@Test
	void waiterIsWokenByTheReleaseMessageLongBeforeTheLeaseEnds() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getLock("wake");
		Warden waitingClient = clients.open(redis.node());
		DistributedReentrantLock waiter = waitingClient.getLock("wake");
		holder.lock(60, TimeUnit.SECONDS);

		Future<Long> acquiredAt = threads.submit(() -> {
			assertThat(waiter.tryLock(30, TimeUnit.SECONDS)).isTrue();
			return System.nanoTime();
		});
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{wake}", 1);
		long releasedAt = System.nanoTime();
		holder.unlock();

		long handoffMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
		assertThat(handoffMillis).isLessThan(2_000);
		assertThat(waitingClient.subscribedChannels()).isZero();
	}

	@Test
	void scriptFlushBetweenCallsChangesNothing() {
		DistributedReentrantLock lock = clients.open(redis.node()).getLock("flushed");
		lock.lock();
		redis.node().call("SCRIPT", "FLUSH");
		lock.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		redis.node().call("SCRIPT", "FLUSH");
		lock.unlock();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void unlockByNonOwnerFailsAndNamesTheLock() throws Exception {
		DistributedReentrantLock lock = clients.open(redis.node()).getLock("mine");
		DistributedReentrantLock foreign = clients.open(redis.node()).getLock("mine");
		lock.lock();

		assertThatThrownBy(foreign::unlock).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("'mine'");
		Future<?> otherThread = threads.submit((Runnable) lock::unlock);
		assertThatThrownBy(otherThread::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
		assertThat(lock.getHoldCount()).isEqualTo(1);
		lock.unlock();
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
	}

	@Test
	void forceUnlockFreesTheLockAndWakesWaiters() throws Exception {
		DistributedReentrantLock holder = clients.open(redis.node()).getLock("forced");
		DistributedReentrantLock waiter = clients.open(redis.node()).getLock("forced");
		holder.lock();
		Future<Boolean> waiting = threads.submit(() -> waiter.tryLock(20, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{forced}", 1);

		assertThat(clients.open(redis.node()).getLock("forced").forceUnlock()).isTrue();
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
		assertThatThrownBy(holder::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(holder.forceUnlock()).isTrue();
		assertThat(holder.forceUnlock()).isFalse();
	}

	@Test
	void ownerThatBelongsToNoThreadReleasesFromAnotherThread() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedReentrantLock lock = warden.getLock("detached");
		LockOwner owner = warden.newOwner();
		assertThat(owner.id()).startsWith(warden.getClientId() + ":-");
		assertThat(owner).isNotEqualTo(warden.newOwner());

		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.isHeldBy(owner)).isTrue();
		assertThat(warden.activeLeaseRenewals()).isEqualTo(1);

		threads.submit(() -> lock.unlockAsync(owner).join()).get();
		assertThat(lock.isLocked()).isFalse();
		assertThat(warden.activeLeaseRenewals()).isZero();
		assertThatThrownBy(() -> lock.unlockAsync(owner).join())
			.hasCauseInstanceOf(IllegalMonitorStateException.class);
	}

	@Test
	void interruptedWaiterThrowsAndLeavesNoSubscription() throws Exception {
		clients.open(redis.node()).getLock("interrupt").lock();
		Warden waitingClient = clients.open(redis.node());
		DistributedReentrantLock waiter = waitingClient.getLock("interrupt");
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		Thread thread = new Thread(() -> {
			try {
				waiter.lockInterruptibly();
				outcome.set(new AssertionError("acquired a held lock"));
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
			done.countDown();
		});
		thread.start();
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{interrupt}", 1);
		thread.interrupt();

		assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		assertThat(waitingClient.subscribedChannels()).isZero();
		RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{interrupt}", 0);
	}

	@Test
	void interruptedStatusFailsLockInterruptiblyAtOnce() {
		DistributedReentrantLock lock = clients.open(redis.node()).getLock("pre-interrupted");
		Thread.currentThread().interrupt();
		assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void badArgumentsFailFast() {
		Warden warden = clients.open(redis.node());
		DistributedReentrantLock lock = warden.getLock("args");
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getLock(" "));
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getLock(null));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(-1, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(0, -5, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(0, 0, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(-1, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(null, 0, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> new LockOwner(""));
		assertThatIllegalArgumentException().isThrownBy(() -> Warden.builder(null));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Warden.builder(clients.redisClient(redis.node())).watchdogTimeout(Duration.ZERO));
		assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void redisDownGivesTypedExceptionWithinTheCommandTimeout() throws InterruptedException {
		Warden warden = clients.open(redis.node(), options -> options.commandTimeout(Duration.ofMillis(500)));
		DistributedReentrantLock lock = warden.getLock("down");
		redis.node().stop();

		long start = System.nanoTime();
		assertThatThrownBy(lock::tryLock).isInstanceOf(RedisUnavailableException.class).hasMessageContaining("'down'");
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);

		// The timed-out attempt was buffered for the reconnect; it must not be sent once Redis is back.
		redis.node().restart();
		awaitReconnected(lock);
		assertThat(redis.node().call("EXISTS", "down")).isEqualTo(0L);
	}

	private static void awaitReconnected(DistributedReentrantLock lock) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			try {
				// Queued behind anything still buffered on the same connection.
				lock.isLocked();
				return;
			}
			catch (RedisUnavailableException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				TimeUnit.MILLISECONDS.sleep(20);
			}
		}
	}

	@Test
	void creatingClientWithRedisDownFailsWithTypedException() {
		var client = clients.redisClient(redis.node());
		redis.node().stop();
		assertThatThrownBy(() -> Warden.create(client)).isInstanceOf(RedisUnavailableException.class);
	}

}
