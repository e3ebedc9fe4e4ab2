package dev.warden.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A release that frees a lock while a waiter of the same client sleeps hands the lock straight to
 * that waiter, in the release script.
 */
class HandOverTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	/** The holder and the waiter of a hand-over, two threads of one client. */
	private final LockOwner first = new LockOwner("client:1");

	private final LockOwner second = new LockOwner("client:2");

	private RedisEngine engine;

	private LeaseRenewal renewal;

	@BeforeEach
	void connect() {
		engine = RedisEngine.connect(clients.redisClient(redis.node()), "hand-over-test", Duration.ofSeconds(5));
		renewal = new LeaseRenewal(engine, 30_000, new LockListener() {
		});
	}

	@AfterEach
	void close() {
		threads.shutdownNow();
		renewal.close();
		engine.close();
	}

	@Test
	void releaseHandsTheLockToASleepingWaiterWithTheNextTokenAndItsWatchdog() throws Exception {
		RedisDistributedLock lock = lock("hand-over");
		long firstToken = lock.tryLockWithToken(first, 0, TimeUnit.SECONDS).orElseThrow();
		Future<OptionalLong> waiting = sleepingWaiter(lock, () -> lock.tryLockWithToken(second, 10, TimeUnit.SECONDS));

		releaseHandsOver(lock, first, second);

		assertThat(waiting.get(10, TimeUnit.SECONDS)).hasValue(firstToken + 1);
		assertThat(lock.isHeldBy(second)).isTrue();
		assertThat(renewal.activeRenewals()).isEqualTo(1);
		lock.unlock(second);
		assertThat(renewal.activeRenewals()).isZero();
		assertThat(redis.node().call("EXISTS", "hand-over")).isEqualTo(0L);
	}

	@Test
	void handedOverLockHasTheLeaseTheWaiterAskedForAndNoTokenItDidNotAskFor() throws Exception {
		RedisDistributedLock lock = lock("hand-over-lease");
		assertThat(lock.tryLock(first, 0, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> waiting = sleepingWaiter(lock, () -> lock.tryLock(second, 10, 4, TimeUnit.SECONDS));

		releaseHandsOver(lock, first, second);

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.remainingTimeToLive()).isBetween(1L, 4_000L);
		assertThat(renewal.activeRenewals()).isZero();
		// tryLock returns no token: neither acquisition touched the fencing counter.
		assertThat(redis.node().call("EXISTS", "{hand-over-lease}:warden_fencing")).isEqualTo(0L);
		lock.unlock(second);
	}

	@Test
	void releaseHandsTheLockToASleepingAsynchronousWaiterWithItsWatchdog() throws Exception {
		RedisDistributedLock lock = lock("hand-over-async");
		assertThat(lock.tryLock(first, 0, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> waiting = lock.tryLockAsync(second, 10, TimeUnit.SECONDS);
		awaitAsleep(lock, 1);

		releaseHandsOver(lock, first, second);

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.isHeldBy(second)).isTrue();
		assertThat(renewal.activeRenewals()).isEqualTo(1);
		lock.unlock(second);
		assertThat(renewal.activeRenewals()).isZero();
		assertThat(redis.node().call("EXISTS", "hand-over-async")).isEqualTo(0L);
	}

	@Test
	void lockHandedFromAnOwnerToItselfIsStillRenewedByTheWatchdog() throws Exception {
		try (LeaseRenewal shortWatchdog = new LeaseRenewal(engine, 1_000, new LockListener() {
		})) {
			RedisDistributedLock lock = new RedisDistributedLock("hand-over-self", engine, shortWatchdog, () -> {
				throw new UnsupportedOperationException("owner-bound calls only");
			});
			LockOwner holder = new LockOwner("client:1");
			LockOwner owner = new LockOwner("client:2");
			// A lease long enough that neither waiter wakes before it is handed the lock.
			assertThat(lock.tryLock(holder, 0, 60, TimeUnit.SECONDS)).isTrue();
			List<CompletableFuture<Boolean>> holds = List.of(lock.tryLockAsync(owner, 30, TimeUnit.SECONDS),
					lock.tryLockAsync(owner, 30, TimeUnit.SECONDS));
			awaitAsleep(lock, 2);
			releaseHandsOver(lock, holder, owner);
			Eventually.await("one acquisition of the owner done", () -> holds.stream().filter(Future::isDone).count() == 1);
			CompletableFuture<Boolean> secondHold = holds.stream().filter(hold -> !hold.isDone()).findFirst().orElseThrow();
			assertThat(waiters(lock).asleep()).isEqualTo(1);

			// The owner's hold ends and its other acquisition takes the lock, in the release: owner to owner.
			long publishes = publishes();
			lock.unlock(owner);
			assertThat(redis.node().call("HGET", "hand-over-self", owner.id())).isEqualTo("1");
			assertThat(publishes()).isEqualTo(publishes);
			assertThat(secondHold.get(10, TimeUnit.SECONDS)).isTrue();

			// Three leases and more: the watchdog keeps the owner's hold, so the intruder waits in vain.
			LockOwner intruder = new LockOwner("client:3");
			assertThat(lock.tryLock(intruder, 3_500, TimeUnit.MILLISECONDS)).as("another owner's wait of 3.5 leases")
				.isFalse();
			assertThat(lock.isHeldBy(owner)).isTrue();
			assertThat((Long) redis.node().call("PTTL", "hand-over-self")).isPositive();
			assertThat(shortWatchdog.activeRenewals()).isEqualTo(1);
			lock.unlock(owner);
			assertThat(shortWatchdog.activeRenewals()).isZero();
			assertThat(redis.node().call("EXISTS", "hand-over-self")).isEqualTo(0L);
		}
	}

	@Test
	void partialReleaseKeepsTheWaiterAsleepUntilTheLastHold() throws Exception {
		RedisDistributedLock lock = lock("hand-over-nested");
		assertThat(lock.tryLock(first, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.tryLock(first, 0, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> waiting = sleepingWaiter(lock, () -> lock.tryLock(second, 10, TimeUnit.SECONDS));

		lock.unlock(first);
		assertThat(lock.getHoldCount(first)).isEqualTo(1);
		assertThat(waiters(lock).asleep()).isEqualTo(1);

		lock.unlock(first);
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		lock.unlock(second);
	}

	@Test
	void releaseByANonOwnerLeavesTheWaiterAsleep() throws Exception {
		RedisDistributedLock lock = lock("hand-over-stranger");
		LockOwner holder = new LockOwner("client:1");
		assertThat(lock.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> waiting = sleepingWaiter(lock, () -> lock.tryLock(new LockOwner("client:2"), 10, TimeUnit.SECONDS));

		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> lock.unlock(new LockOwner("client:3")));
		assertThat(waiters(lock).asleep()).isEqualTo(1);
		assertThat(lock.isHeldBy(holder)).isTrue();

		lock.unlock(holder);
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void afterSixteenHandOversInARowTheReleaseIsPublishedForOtherClients() throws Exception {
		RedisDistributedLock lock = lock("hand-over-streak");
		LockOwner[] owners = { new LockOwner("client:1"), new LockOwner("client:2") };
		assertThat(lock.tryLock(owners[0], 0, TimeUnit.SECONDS)).isTrue();
		long publishes = publishes();
		for (int release = 1; release <= HandOvers.MAX_HAND_OVERS_IN_A_ROW + 1; release++) {
			LockOwner next = owners[release % 2];
			Future<Boolean> waiting = sleepingWaiter(lock, () -> lock.tryLock(next, 10, TimeUnit.SECONDS));
			lock.unlock(owners[(release + 1) % 2]);
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
			long expected = (release <= HandOvers.MAX_HAND_OVERS_IN_A_ROW) ? 0 : 1;
			assertThat(publishes() - publishes).as("messages after %d releases", release).isEqualTo(expected);
		}
		lock.unlock(owners[(HandOvers.MAX_HAND_OVERS_IN_A_ROW + 1) % 2]);
	}

	@Test
	void fairLockIsHandedToTheFirstWaiterWhenItBelongsToTheReleasingClient() throws Exception {
		RedisDistributedLock lock = fairLock("fair-hand-over", engine, renewal);
		long firstToken = lock.tryLockWithToken(first, 0, TimeUnit.SECONDS).orElseThrow();
		Future<OptionalLong> waiting = threads.submit(() -> lock.tryLockWithToken(second, 10, TimeUnit.SECONDS));
		awaitFairAsleep(engine, lock, second);

		releaseHandsOver(lock, first, second);

		assertThat(redis.node().call("EXISTS", "redisson_lock_queue:{fair-hand-over}",
				"redisson_lock_timeout:{fair-hand-over}")).isEqualTo(0L);
		assertThat(waiting.get(10, TimeUnit.SECONDS)).hasValue(firstToken + 1);
		lock.unlock(second);
	}

	@Test
	void fairLockIsHandedToAnAsynchronousFirstWaiterOfTheReleasingClient() throws Exception {
		RedisDistributedLock lock = fairLock("fair-hand-over-async", engine, renewal);
		assertThat(lock.tryLock(first, 0, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> waiting = lock.tryLockAsync(second, 10, TimeUnit.SECONDS);
		awaitFairAsleep(engine, lock, second);

		releaseHandsOver(lock, first, second);

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		lock.unlock(second);
		assertThat(redis.node().call("EXISTS", "fair-hand-over-async")).isEqualTo(0L);
	}

	@Test
	void fairLockGoesToAnotherClientsWaiterThatQueuedFirst() throws Exception {
		RedisEngine otherEngine = RedisEngine.connect(clients.redisClient(redis.node()), "other", Duration.ofSeconds(5));
		try (LeaseRenewal otherRenewal = new LeaseRenewal(otherEngine, 30_000, new LockListener() {
		})) {
			RedisDistributedLock lock = fairLock("fair-queue-order", engine, renewal);
			RedisDistributedLock othersView = fairLock("fair-queue-order", otherEngine, otherRenewal);
			LockOwner holder = new LockOwner("client:1");
			LockOwner remote = new LockOwner("other:1");
			LockOwner local = new LockOwner("client:2");
			assertThat(lock.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
			Future<Boolean> remoteWaiting = threads.submit(() -> othersView.tryLock(remote, 10, TimeUnit.SECONDS));
			awaitFairAsleep(otherEngine, othersView, remote);
			Future<Boolean> localWaiting = threads.submit(() -> lock.tryLock(local, 10, TimeUnit.SECONDS));
			awaitFairAsleep(engine, lock, local);

			lock.unlock(holder);

			assertThat(remoteWaiting.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(othersView.isHeldBy(remote)).isTrue();
			assertThat(localWaiting).isNotDone();
			othersView.unlock(remote);
			assertThat(localWaiting.get(10, TimeUnit.SECONDS)).isTrue();
			lock.unlock(local);
		}
		finally {
			otherEngine.close();
		}
	}

	private static RedisDistributedLock fairLock(String name, RedisEngine engine, LeaseRenewal renewal) {
		return RedisDistributedLock.fair(name, 5_000, engine, renewal, () -> {
			throw new UnsupportedOperationException("owner-bound calls only");
		});
	}

	private static void awaitFairAsleep(RedisEngine engine, RedisDistributedLock lock, LockOwner owner)
			throws InterruptedException {
		String channel = RedisDistributedLock.CHANNEL_PREFIX + ":{" + lock.getName() + "}:" + owner.id();
		Eventually.await(owner.id() + " asleep on " + lock.getName(), () -> {
			LockWaiters waiters = engine.subscriptions().listener(channel, LockWaiters.class);
			return waiters != null && waiters.asleep() == 1;
		});
	}

	private RedisDistributedLock lock(String name) {
		return new RedisDistributedLock(name, engine, renewal, () -> {
			throw new UnsupportedOperationException("owner-bound calls only");
		});
	}

	private LockWaiters waiters(RedisDistributedLock lock) {
		LockWaiters waiters = engine.subscriptions()
			.listener(RedisDistributedLock.CHANNEL_PREFIX + ":{" + lock.getName() + "}", LockWaiters.class);
		assertThat(waiters).as("waiters of " + lock.getName()).isNotNull();
		return waiters;
	}

	/** Starts a waiter of the lock and returns once it sleeps, waiting for a release. */
	private <T> Future<T> sleepingWaiter(RedisDistributedLock lock, Callable<T> waiter) throws InterruptedException {
		Future<T> waiting = threads.submit(waiter);
		awaitAsleep(lock, 1);
		return waiting;
	}

	private void awaitAsleep(RedisDistributedLock lock, int count) throws InterruptedException {
		Eventually.await(count + " waiter(s) asleep on " + lock.getName(), () -> {
			LockWaiters waiters = engine.subscriptions()
				.listener(RedisDistributedLock.CHANNEL_PREFIX + ":{" + lock.getName() + "}", LockWaiters.class);
			return waiters != null && waiters.asleep() == count;
		});
	}

	/**
	 * Releases the holder's only hold and checks that the lock passed to {@code next} in the
	 * release itself, before the waiter even wakes: one hold, and no release message.
	 */
	private static void releaseHandsOver(RedisDistributedLock lock, LockOwner holder, LockOwner next) {
		long publishes = publishes();
		lock.unlock(holder);
		assertThat(redis.node().call("HEXISTS", lock.getName(), holder.id())).isEqualTo(0L);
		assertThat(redis.node().call("HGET", lock.getName(), next.id())).isEqualTo("1");
		assertThat(publishes()).isEqualTo(publishes);
	}

	/** PUBLISH calls Redis has executed, those in scripts included. */
	private static long publishes() {
		String stats = (String) redis.node().call("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_publish:")) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

}
