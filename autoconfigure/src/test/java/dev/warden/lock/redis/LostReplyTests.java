package dev.warden.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.LuaScript;
import dev.warden.redis.RedisEngine;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A reply lost on its way back (the command ran in Redis, the connection was reset before its
 * reply arrived) leaves no hold nobody knows about: the caller sees {@link RedisUnavailableException},
 * and the owner's next acquisition or release drops the hidden hold, so the lock is free once the
 * owner has released what it knows it holds. The client talks to Redis through a proxy that loses
 * the reply; a second client, connected directly, checks that the lock is free.
 */
class LostReplyTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final LockOwner owner = new LockOwner("lost-reply:1");

	private final LockOwner waiter = new LockOwner("lost-reply:2");

	private TcpProxy proxy;

	private RedisEngine engine;

	private LeaseRenewal renewal;

	private Warden other;

	@BeforeEach
	void connectThroughAProxy() {
		proxy = TcpProxy.start(redis.node());
		engine = RedisEngine.connect(clients.redisClient(proxy.host(), proxy.port()), "lost-reply-test",
				Duration.ofSeconds(5));
		renewal = new LeaseRenewal(engine, 30_000, new LockListener() {
		});
		other = clients.open(redis.node());
		// Cached, so that the reply lost is the script's own, not a NOSCRIPT that runs nothing.
		for (LuaScript script : new LuaScript[] { LockScripts.ACQUIRE, LockScripts.RELEASE, LockScripts.TRIM,
				LockScripts.FAIR_ACQUIRE, LockScripts.FAIR_RELEASE, LockScripts.READ_ACQUIRE, LockScripts.READ_RELEASE,
				LockScripts.WRITE_ACQUIRE, LockScripts.WRITE_RELEASE, LockScripts.SIMPLE_ACQUIRE,
				LockScripts.SIMPLE_RELEASE }) {
			redis.node().call("SCRIPT", "LOAD", script.source());
		}
	}

	@AfterEach
	void close() {
		threads.shutdownNow();
		renewal.close();
		engine.close();
		proxy.close();
	}

	@Test
	void anAcquisitionWhoseReplyIsLostAndThatIsRetriedLeavesOneHold() throws Exception {
		RedisDistributedLock lock = lock("retried");
		proxy.loseNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> lock.tryLock(owner, 0, TimeUnit.SECONDS))
			.withMessageContaining("lock of 'retried'");
		assertThat(holds("retried")).as("the lost acquisition ran in Redis").isEqualTo("1");

		// The caller retries once the client has reconnected, then releases what it knows it holds.
		assertThat(lock.tryLock(owner, 5, TimeUnit.SECONDS)).isTrue();
		assertThat(holds("retried")).as("the hidden hold is dropped").isEqualTo("1");
		lock.unlock(owner);

		assertThat(other.getLock("retried").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
		assertThat(renewal.activeRenewals()).isZero();
	}

	@Test
	void anAcquisitionWhoseConnectionClosesBeforeItsReplyRunsOnce() throws Exception {
		RedisDistributedLock lock = lock("closed");
		// Closed normally (CLIENT KILL, an idle timeout, a proxy), not reset: Lettuce would send the
		// unanswered script again once it has reconnected, and the owner would hold the lock twice.
		proxy.dropNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> lock.tryLock(owner, 0, TimeUnit.SECONDS))
			.withMessageContaining("lock of 'closed'");
		assertThat(holds("closed")).as("the acquisition ran in Redis once").isEqualTo("1");

		assertThat(lock.tryLock(owner, 5, TimeUnit.SECONDS)).isTrue();
		assertThat(holds("closed")).as("the hidden hold is dropped").isEqualTo("1");
		lock.unlock(owner);
		assertThat(other.getLock("closed").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aWaitingAcquisitionWhoseConnectionClosesBeforeItsReplyIsTriedAgainAndHoldsOnce() throws Exception {
		// A fail-over's demoted master closes its clients' connections so: an acquisition with wait
		// left goes on, on the next connection, instead of failing.
		RedisDistributedLock lock = lock("closed-waiting");
		proxy.dropNextReply("EVALSHA");

		assertThat(lock.tryLock(owner, 10, TimeUnit.SECONDS)).as("tried again on the next connection").isTrue();
		assertThat(engine.disconnects()).as("the connection closed under the first try").isPositive();
		assertThat(holds("closed-waiting")).as("the hold the first try took is dropped").isEqualTo("1");
		lock.unlock(owner);
		assertThat(other.getLock("closed-waiting").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aTryAfterTheFirstWhoseConnectionClosesBeforeItsReplyIsTriedAgain() throws Exception {
		RedisDistributedLock lock = lock("closed-later");
		LockOwner holder = other.newOwner();
		DistributedReentrantLock held = other.getLock("closed-later");
		assertThat(held.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> waiting = threads.submit(() -> lock.tryLock(owner, 30, TimeUnit.SECONDS));
		Eventually.await("the waiter listening for the release", () -> Long.valueOf(1)
			.equals(((List<?>) redis.node().call("PUBSUB", "NUMSUB", "redisson_lock__channel:{closed-later}")).get(1)));

		// The next try (after the subscription, or the one the release wakes) loses its reply.
		proxy.dropNextReply("EVALSHA");
		held.unlock(holder);

		assertThat(waiting.get(30, TimeUnit.SECONDS)).as("tried again on the next connection").isTrue();
		assertThat(engine.disconnects()).as("the connection closed under a try").isPositive();
		assertThat(holds("closed-later")).isEqualTo("1");
		lock.unlock(owner);
		assertThat(other.getLock("closed-later").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aBlockingAcquisitionTriesAgainAfterThreeLostTriesAtMostNotThreeMoreOnceItWaits() throws Exception {
		// At most three tries of one acquisition are sent again after their connection closed before
		// Redis answered (Acquisition.LOST_TRIES): a fourth lost try fails the acquisition, whether it
		// is the first try or one made while waiting, as it does for an acquisition that never blocks.
		RedisDistributedLock lock = lock("lost-three-times");
		LockOwner holder = other.newOwner();
		DistributedReentrantLock held = other.getLock("lost-three-times");
		assertThat(held.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
		// Tries 1 to 3 lose their replies, try 4 is answered (held by another), try 5, the first made
		// while waiting, loses its reply: the fourth lost try.
		proxy.dropReplies("EVALSHA", true, true, true, false, true);

		Future<Boolean> waiting = threads.submit(() -> lock.tryLock(owner, 30, TimeUnit.SECONDS));
		Eventually.await("the acquisition failed, or waits for a release", () -> {
			LockWaiters waiters = engine.subscriptions()
				.listener(RedisDistributedLock.CHANNEL_PREFIX + ":{lost-three-times}", LockWaiters.class);
			return waiting.isDone() || (waiters != null && waiters.asleep() == 1);
		});
		Eventually.await("four connections closed under a try", () -> engine.disconnects() == 4);
		held.unlock(holder);

		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.as("the fourth lost try fails the acquisition")
			.isThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(RedisUnavailableException.class);
		assertThat(other.getLock("lost-three-times").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aCancelledAcquisitionWhoseTryLosesItsReplyLeavesNoHold() throws Exception {
		// Cancelling an acquisition stops the wait, and a hold acquired meanwhile is released
		// (DistributedMutex#tryLockAsync): also one taken by a try in flight whose connection then
		// closed before Redis answered, which is not tried again once the acquisition is cancelled.
		RedisDistributedLock lock = lock("cancelled-lost");
		// The try reaches Redis, and its reply the proxy, well after the cancel.
		proxy.latency(300);
		proxy.dropNextReply("EVALSHA");

		java.util.concurrent.CompletableFuture<Boolean> acquiring = lock.tryLockAsync(owner, 10, TimeUnit.SECONDS);
		assertThat(acquiring.cancel(false)).as("cancelled while its first try is in flight").isTrue();
		Eventually.await("the try's connection closed", () -> engine.disconnects() == 1);
		proxy.heal();
		assertThat(redis.node().call("HEXISTS", "cancelled-lost", owner.id())).as("the try ran in Redis").isEqualTo(1L);

		Eventually.await("the lock free, well before the hold's lease (30 s) ends", Duration.ofSeconds(10),
				() -> redis.node().call("EXISTS", "cancelled-lost").equals(0L));
		assertThat(other.getLock("cancelled-lost").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aSimpleLockWhoseAcquisitionReplyIsLostIsTakenOverByTheRetryNotRefusedAsAReentry() throws Exception {
		RedisSimpleLock lock = new RedisSimpleLock("simple-retried", engine, renewal, LostReplyTests::noThreadOwner);
		proxy.loseNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS));
		assertThat(redis.node().call("GET", "simple-retried")).as("the lost acquisition ran in Redis")
			.isEqualTo(owner.id());

		OptionalLong token = lock.tryLockWithToken(owner, 5, TimeUnit.SECONDS);
		assertThat(token).as("the retry takes the hold over, with a token of its own").isPresent();
		assertThatExceptionOfType(IllegalStateException.class).as("a hold known of is not re-entered")
			.isThrownBy(() -> lock.tryLock(owner, 0, TimeUnit.SECONDS));
		lock.unlock(owner);

		assertThat(other.getSimpleLock("simple-retried").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
		assertThat(renewal.activeRenewals()).isZero();
	}

	private static LockOwner noThreadOwner() {
		throw new UnsupportedOperationException("owner-bound calls only");
	}

	@Test
	void aReentryWhoseReplyIsLostIsDroppedByTheRelease() throws Exception {
		RedisDistributedLock lock = lock("reentered");
		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		proxy.loseNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> lock.tryLock(owner, 0, TimeUnit.SECONDS));
		assertThat(holds("reentered")).as("the lost re-entry ran in Redis").isEqualTo("2");

		Eventually.await("reconnected", () -> proxy.openConnections() == 2);
		lock.unlock(owner);

		assertThat(holds("reentered")).as("released, hidden hold included").isNull();
		assertThat(other.getLock("reentered").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
		assertThat(renewal.activeRenewals()).isZero();
	}

	@Test
	void aHandOverWhoseReplyIsLostGivesTheWaiterTheLockNotTheReleasersFailure() throws Exception {
		RedisDistributedLock lock = lock("handed");
		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> waiting = threads.submit(() -> lock.tryLock(waiter, 20, TimeUnit.SECONDS));
		Eventually.await("the waiter asleep", () -> {
			LockWaiters waiters = engine.subscriptions()
				.listener(RedisDistributedLock.CHANNEL_PREFIX + ":{handed}", LockWaiters.class);
			return waiters != null && waiters.asleep() == 1;
		});
		proxy.loseNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(() -> lock.unlock(owner));

		assertThat(waiting.get(20, TimeUnit.SECONDS)).as("the waiter holds the lock").isTrue();
		assertThat(holds("handed")).as("one hold of the waiter").isEqualTo("1");
		assertThat(redis.node().call("HGET", "handed", waiter.id())).isEqualTo("1");
		lock.unlock(waiter);
		assertThat(other.getLock("handed").tryLock(other.newOwner(), 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void everyReentrantKindDropsTheHoldOfALostAcquisitionReply() throws Exception {
		RedisReadWriteLock readWrite = new RedisReadWriteLock("rw", engine, renewal, () -> {
			throw new UnsupportedOperationException("owner-bound calls only");
		});
		RedisReadWriteLock readOnly = new RedisReadWriteLock("ro", engine, renewal, () -> {
			throw new UnsupportedOperationException("owner-bound calls only");
		});
		Map<String, DistributedReentrantLock> kinds = Map.of("fair",
				RedisDistributedLock.fair("fair", 5_000, engine, renewal, () -> {
					throw new UnsupportedOperationException("owner-bound calls only");
				}), "write", readWrite.writeLock(), "read", readOnly.readLock());
		for (Map.Entry<String, DistributedReentrantLock> kind : kinds.entrySet()) {
			DistributedReentrantLock lock = kind.getValue();
			Eventually.await("connected", () -> proxy.openConnections() == 2);
			proxy.loseNextReply();
			assertThatExceptionOfType(RedisUnavailableException.class)
				.as(kind.getKey()).isThrownBy(() -> lock.tryLock(owner, 0, TimeUnit.SECONDS));

			assertThat(lock.tryLock(owner, 5, TimeUnit.SECONDS)).as(kind.getKey()).isTrue();
			lock.unlock(owner);
			assertThat(lock.isLocked()).as(kind.getKey() + " free after one unlock per lock").isFalse();
		}
		assertThat(renewal.activeRenewals()).isZero();
	}

	/** The hold count of the lock's only owner field, as Redis has it; {@code null} when the lock is free. */
	private static Object holds(String lock) {
		Object fields = redis.node().call("HVALS", lock);
		return (fields instanceof List<?> values && values.size() == 1) ? values.get(0) : null;
	}

	private RedisDistributedLock lock(String name) {
		return new RedisDistributedLock(name, engine, renewal, () -> {
			throw new UnsupportedOperationException("owner-bound calls only");
		});
	}

}
