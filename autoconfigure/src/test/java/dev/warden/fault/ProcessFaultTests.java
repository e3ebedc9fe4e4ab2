package dev.warden.fault;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder in a process of its own, killed or paused by its PID while it holds a lock under the
 * watchdog: the others get the lock once its lease runs out, not before; a paused holder that
 * wakes up is told it lost the lock, cannot unlock it, and its late write is refused by a store
 * that checks fencing tokens.
 */
class ProcessFaultTests {

	private static final long WATCHDOG_MILLIS = 1_500;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private ForkedJvm holder;

	@AfterEach
	void stopHolder() {
		if (holder != null) {
			holder.close();
		}
	}

	@Test
	void aKilledHoldersLockPassesOnWhenItsLeaseRunsOutNotBefore() throws Exception {
		startHolder("killed");
		Warden other = clients.open(redis.node());
		LockOwner next = other.newOwner();
		DistributedReentrantLock lock = other.getLock("killed");
		assertThat(lock.tryLock(next, 0, TimeUnit.SECONDS)).as("held by the other process").isFalse();

		long leaseLeft = (Long) redis.node().call("PTTL", "killed");
		long killed = System.nanoTime();
		holder.kill();
		assertThat(lock.tryLock(next, 10, TimeUnit.SECONDS)).isTrue();
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

		// Redis's clock decides; the margins only absorb this JVM's own scheduling.
		assertThat(waitedMillis).as("not before the lease ran out").isGreaterThanOrEqualTo(leaseLeft - 100);
		assertThat(waitedMillis).as("promptly after").isLessThan(leaseLeft + 2_000);
		lock.unlock(next);
	}

	@Test
	void aPausedHolderIsToldOnWakingThatItLostTheLockAndItsLateWriteIsRefused() throws Exception {
		long heldToken = startHolder("paused");
		Warden other = clients.open(redis.node());
		LockOwner next = other.newOwner();

		holder.pause();
		OptionalLong token = other.getLock("paused").tryLockWithToken(next, 10, TimeUnit.SECONDS);
		assertThat(token).as("taken over once the paused holder's lease ran out").isPresent();
		assertThat(token.getAsLong()).isGreaterThan(heldToken);
		RedisClient writer = clients.redisClient(redis.node());
		assertThat(FencedStore.write(writer, "account-7", token.getAsLong(), "new holder")).isTrue();

		holder.resume();
		holder.awaitLine("LOST paused", Duration.ofSeconds(10));
		holder.send("UNLOCK");
		assertThat(holder.awaitLine("UNLOCK", Duration.ofSeconds(10))).isEqualTo("UNLOCK IllegalMonitorStateException");
		holder.send("WRITE account-7 stale");
		assertThat(holder.awaitLine("WRITE", Duration.ofSeconds(10))).isEqualTo("WRITE REFUSED");
		assertThat(redis.node().call("HGET", "account-7", "value")).isEqualTo("new holder");
		assertThat(other.getLock("paused").isHeldBy(next)).isTrue();
	}

	/** Starts the holder's process and returns once it holds the lock, with its fencing token. */
	private long startHolder(String lock) throws InterruptedException {
		holder = ForkedJvm.start("holder-" + lock, ForkedHolder.class, redis.node().host(),
				Integer.toString(redis.node().port()), lock, Long.toString(WATCHDOG_MILLIS));
		return Long.parseLong(holder.awaitLine("HELD ", Duration.ofSeconds(30)).substring("HELD ".length()));
	}

}
