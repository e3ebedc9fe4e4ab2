package dev.warden.fault;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisNode;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis restarted while a lock is held under the watchdog and another client waits for it. Without
 * persistence the lock is gone: the waiter takes it, and the holder is told it lost it. With AOF the
 * lock survives: the holder keeps it, and the waiter takes it when the holder releases it, woken
 * by the release message on its resubscribed channel.
 */
class RedisRestartTests {

	private static final long WATCHDOG_MILLIS = 1_000;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final CompletableFuture<String> lost = new CompletableFuture<>();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void withoutPersistenceTheWaiterTakesTheLockAndTheHolderIsTold() throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("restart-volatile"))) {
			Warden holder = holder(node);
			LockOwner owner = holder.newOwner();
			assertThat(holder.getLock("restarted").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			Warden other = clients.open(node);
			Future<Boolean> waiting = threads.submit(() -> other.getLock("restarted").tryLock(other.newOwner(), 30,
					TimeUnit.SECONDS));
			awaitSubscribed(other);

			node.restart();

			assertThat(waiting.get(30, TimeUnit.SECONDS)).as("the waiter takes the vanished lock").isTrue();
			assertThat(lost.get(30, TimeUnit.SECONDS)).isEqualTo("restarted");
			assertThat(holder.getLock("restarted").isHeldBy(owner)).isFalse();
		}
	}

	@Test
	void withAofTheHolderKeepsTheLockAndItsReleaseWakesTheWaiter() throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("restart-aof").appendOnly(true))) {
			Warden holder = holder(node);
			LockOwner owner = holder.newOwner();
			DistributedReentrantLock lock = holder.getLock("kept");
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			Warden other = clients.open(node);
			Future<Boolean> waiting = threads.submit(() -> other.getLock("kept").tryLock(other.newOwner(), 30,
					TimeUnit.SECONDS));
			awaitSubscribed(other);

			node.restart();
			awaitAnswering(lock);
			long leaseAfterRestart = (Long) node.call("PTTL", "kept");
			Eventually.await("the holder's watchdog renewing the restored lock",
					() -> (Long) node.call("PTTL", "kept") > leaseAfterRestart);
			assertThat(lock.isHeldBy(owner)).as("still the holder's").isTrue();
			assertThat(waiting.isDone()).isFalse();

			lock.unlock(owner);
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(lost).isNotDone();
		}
	}

	private Warden holder(RedisNode node) {
		return clients.open(node, options -> options.watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS))
			.lockListener(new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					lost.complete(lockName);
				}
			}));
	}

	private static void awaitSubscribed(Warden warden) throws InterruptedException {
		Eventually.await("the waiter subscribed", () -> warden.subscribedChannels() > 0);
	}

	private static void awaitAnswering(DistributedReentrantLock lock) throws InterruptedException {
		Eventually.await("Redis answering again", () -> {
			try {
				lock.isLocked();
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		});
	}

}
