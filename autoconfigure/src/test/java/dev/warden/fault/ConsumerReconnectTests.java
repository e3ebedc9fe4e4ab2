package dev.warden.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client whose connections drop misses what is published meanwhile: a consumer looks at its queue,
 * and a lock waiter tries again, as soon as its channel is resubscribed, not at its next sweep or
 * when the holder's lease runs out.
 */
class ConsumerReconnectTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private TcpProxy proxy;

	@BeforeEach
	void startProxy() {
		proxy = TcpProxy.start(redis.node());
	}

	@AfterEach
	void stopProxy() {
		threads.shutdownNow();
		proxy.close();
	}

	@Test
	void aConsumerClaimsAtOnceAfterItsConnectionsComeBack() throws Exception {
		Warden consumer = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.taskSweepInterval(Duration.ofMinutes(10)));
		CountDownLatch ran = new CountDownLatch(1);
		consumer.getDelayedQueue("reconnected", String.class).consume(delivery -> ran.countDown());
		// Confirmed by Redis: the reset then drops a subscription, not one still on its way.
		Eventually.await("the consumer subscribed", () -> subscribers("warden:task:{reconnected}:wake") > 0);
		DelayedQueue<String> producer = clients.open(redis.node()).getDelayedQueue("reconnected", String.class);

		proxy.blackhole();
		// Published while the consumer hears nothing: this wake-up is lost to it.
		producer.schedule("t-1", "x", Duration.ZERO);
		proxy.resetAll();
		proxy.heal();

		assertThat(ran.await(10, TimeUnit.SECONDS)).as("claimed once resubscribed, not at the 10-minute sweep")
			.isTrue();
	}

	@Test
	void aWaiterTriesAgainAtOnceAfterItsConnectionsComeBack() throws Exception {
		Warden holder = clients.open(redis.node());
		Warden waiters = clients.open(clients.redisClient(proxy.host(), proxy.port()));
		LockOwner owner = holder.newOwner();
		assertThat(holder.getLock("reconnected").tryLock(owner, 0, 60, TimeUnit.SECONDS)).isTrue();
		long triesBefore = evalshaCalls();
		LockOwner waiter = waiters.newOwner();
		Future<Boolean> waiting = threads.submit(() -> waiters.getLock("reconnected").tryLock(waiter, 30,
				TimeUnit.SECONDS));
		// Asleep: subscribed, and both of its tries (before and after the subscription) answered.
		Eventually.await("the waiter asleep", () -> subscribers("redisson_lock__channel:{reconnected}") > 0
				&& evalshaCalls() >= triesBefore + 2);

		proxy.blackhole();
		// The release message reaches the proxy and is dropped with the connection.
		holder.getLock("reconnected").unlock(owner);
		proxy.resetAll();
		proxy.heal();

		assertThat(waiting.get(20, TimeUnit.SECONDS)).as("once reconnected, not when the 60-second lease runs out").isTrue();
	}

	private static long evalshaCalls() {
		String stats = (String) redis.node().call("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:calls=")) {
				return Long.parseLong(line.substring("cmdstat_evalsha:calls=".length(), line.indexOf(',')));
			}
		}
		return 0;
	}

	private static long subscribers(String channel) {
		return (Long) ((List<?>) redis.node().call("PUBSUB", "NUMSUB", channel)).get(1);
	}

}
