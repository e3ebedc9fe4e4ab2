package dev.warden.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Redis that goes silent (the connection open, nothing coming back, through a proxy that holds
 * every byte): calls fail with {@link RedisUnavailableException} within the command timeout, a
 * holder is told it lost its lock while Redis is still silent, and the client works again once
 * the network heals. Latency below the command timeout only slows calls down; a reply cut in the
 * middle is a {@link RedisUnavailableException} too.
 */
class SilentRedisTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final CompletableFuture<@Nullable Throwable> lost = new CompletableFuture<>();

	private TcpProxy proxy;

	private Warden holder;

	@BeforeEach
	void connectThroughAProxy() {
		proxy = TcpProxy.start(redis.node());
		holder = clients.open(clients.redisClient(proxy.host(), proxy.port()), options -> options
			.watchdogTimeout(Duration.ofMillis(900))
			.commandTimeout(Duration.ofMillis(500))
			.lockListener(new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					lost.complete(cause);
				}
			}));
	}

	@AfterEach
	void heal() {
		proxy.close();
	}

	@Test
	void aHolderIsToldItsLeaseIsLostWhileRedisIsStillSilent() throws Exception {
		LockOwner owner = holder.newOwner();
		assertThat(holder.getLock("silent").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		Warden other = clients.open(redis.node());
		int connections = proxy.openConnections();

		proxy.blackhole();

		LockOwner next = other.newOwner();
		assertThat(other.getLock("silent").tryLock(next, 10, TimeUnit.SECONDS)).as("taken over once the lease ran out")
			.isTrue();
		Throwable cause = lost.get(10, TimeUnit.SECONDS);
		assertThat(cause).isInstanceOf(RedisUnavailableException.class);
		assertThat(proxy.openConnections()).as("still silent, not reset").isEqualTo(connections);
	}

	@Test
	void callsFailWithinTheCommandTimeoutAndWorkAgainOnceItHeals() throws Exception {
		LockOwner owner = holder.newOwner();
		proxy.blackhole();

		long start = System.nanoTime();
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> holder.getLock("silent").tryLock(owner, 0, TimeUnit.SECONDS))
			.withMessageContaining("500 ms");
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("failed promptly").isLessThan(5_000);

		proxy.heal();
		assertThat(holder.getLock("healed").tryLock(owner, 5, TimeUnit.SECONDS)).isTrue();
		holder.getLock("healed").unlock(owner);
	}

	@Test
	void latencyBelowTheCommandTimeoutOnlySlowsCallsDownAndAboveItFailsThem() throws Exception {
		LockOwner owner = holder.newOwner();
		proxy.latency(100);
		assertThat(holder.getLock("slow").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		holder.getLock("slow").unlock(owner);

		proxy.latency(800);
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> holder.getLock("slower").tryLock(owner, 0, TimeUnit.SECONDS));
		proxy.heal();
	}

	@Test
	void aReplyCutInTheMiddleIsAnUnavailableRedisAndTheClientRecovers() throws Exception {
		dev.warden.task.DelayedQueue<String> queue = holder.getDelayedQueue("cut", String.class);
		// Cached first, so that the reply cut is the script's own, not a NOSCRIPT that runs nothing.
		queue.schedule("t-0", "x", Duration.ofHours(1));
		int connections = proxy.openConnections();
		proxy.cutNextReply();

		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> queue.schedule("t-1", "x", Duration.ofHours(1)));

		// Every connection back: a call sent while its connection is being closed may fail as well.
		dev.warden.Eventually.await("reconnected", () -> proxy.openConnections() == connections);
		assertThat(queue.schedule("t-1", "x", Duration.ofHours(1)).status()).as("it had reached Redis")
			.isEqualTo(dev.warden.task.ScheduleResult.Status.ALREADY_PENDING);
	}

}
