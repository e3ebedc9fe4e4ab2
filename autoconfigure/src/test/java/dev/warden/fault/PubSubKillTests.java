package dev.warden.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pub/sub connections killed again and again ({@code CLIENT KILL TYPE pubsub}) while waiters
 * of another client contend for a lock: a release message may be lost, but no waiter waits past the
 * holder's lease (they look again as soon as their channel is resubscribed), and once the kills
 * stop a release wakes a waiter by its message.
 */
class PubSubKillTests {

	private static final long LEASE_MILLIS = 3_000;

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
	void noWaiterWaitsPastTheLeaseAndSubscriptionsComeBack() throws Exception {
		Warden holder = clients.open(redis.node());
		Warden waiters = clients.open(redis.node());
		DistributedReentrantLock lock = holder.getLock("contended");
		LockOwner owner = holder.newOwner();
		List<Long> waits = new ArrayList<>();

		for (int round = 0; round < 6; round++) {
			assertThat(lock.tryLock(owner, 5, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
			LockOwner waiter = waiters.newOwner();
			Future<Long> waited = threads.submit(() -> {
				long start = System.nanoTime();
				boolean acquired = waiters.getLock("contended").tryLock(waiter, 10_000, LEASE_MILLIS,
						TimeUnit.MILLISECONDS);
				long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				if (acquired) {
					waiters.getLock("contended").unlock(waiter);
				}
				return acquired ? millis : -1;
			});
			// Confirmed by Redis: the kill then drops a subscription, not one still on its way.
			Eventually.await("the waiter subscribed", () -> subscribers("redisson_lock__channel:{contended}") > 0);
			redis.node().call("CLIENT", "KILL", "TYPE", "pubsub");
			lock.unlock(owner);
			waits.add(waited.get(10, TimeUnit.SECONDS));
		}

		// A release lost with the connection is made up for by the resubscription (or, when the kill
		// caught the subscription itself on its way, by the holder's lease running out).
		assertThat(waits).as("every waiter acquired, none past the holder's lease")
			.allSatisfy(millis -> assertThat(millis).isBetween(0L, LEASE_MILLIS + 1_000));

		// The kills are over: a release with a long lease left wakes the waiter by its message.
		assertThat(lock.tryLock(owner, 5, 60_000, TimeUnit.MILLISECONDS)).isTrue();
		LockOwner last = waiters.newOwner();
		Future<Boolean> waiting = threads.submit(() -> waiters.getLock("contended").tryLock(last, 30, TimeUnit.SECONDS));
		Eventually.await("subscribed again", () -> subscribers("redisson_lock__channel:{contended}") > 0);
		lock.unlock(owner);
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(waiters.getLock("contended").remainingTimeToLive()).as("held by the waiter, not expired")
			.isGreaterThan(0);
	}

	private static long subscribers(String channel) {
		List<?> reply = (List<?>) redis.node().call("PUBSUB", "NUMSUB", channel);
		return (Long) reply.get(1);
	}

}
