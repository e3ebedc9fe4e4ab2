package dev.warden.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer whose connections drop while a task is scheduled misses the wake-up published
 * meanwhile; it looks at its queue as soon as its channel is resubscribed, not at its next sweep.
 */
class ConsumerReconnectTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private TcpProxy proxy;

	@BeforeEach
	void startProxy() {
		proxy = TcpProxy.start(redis.node());
	}

	@AfterEach
	void stopProxy() {
		proxy.close();
	}

	@Test
	void aConsumerClaimsAtOnceAfterItsConnectionsComeBack() throws Exception {
		Warden consumer = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				// A claim caught by the silence and the reset may be lost with its connection: it fails
				// after the command timeout and is sent again a second later, well before the sweep.
				options -> options.taskSweepInterval(Duration.ofMinutes(10)).commandTimeout(Duration.ofSeconds(2)));
		CountDownLatch warmedUp = new CountDownLatch(1);
		CountDownLatch ran = new CountDownLatch(1);
		consumer.getDelayedQueue("reconnected", String.class)
			.consume(delivery -> (delivery.id().equals("t-0") ? warmedUp : ran).countDown());
		// Confirmed by Redis: the reset then drops a subscription, not one still on its way.
		Eventually.await("the consumer subscribed", () -> subscribers("warden:task:{reconnected}:wake") > 0);
		DelayedQueue<String> producer = clients.open(redis.node()).getDelayedQueue("reconnected", String.class);
		// A first task run end to end: the consumer is idle when the network goes silent.
		producer.schedule("t-0", "x", Duration.ZERO);
		assertThat(warmedUp.await(10, TimeUnit.SECONDS)).as("the first task ran").isTrue();
		Eventually.await("the first task acknowledged", () -> producer.size() == 0);

		proxy.blackhole();
		// Published while the consumer hears nothing: this wake-up is lost to it.
		producer.schedule("t-1", "x", Duration.ZERO);
		proxy.resetAll();
		proxy.heal();

		assertThat(ran.await(10, TimeUnit.SECONDS))
			.as(() -> "claimed once resubscribed, not at the 10-minute sweep; due: "
					+ redis.node().call("ZRANGE", "warden:task:{reconnected}:due", "0", "-1", "WITHSCORES") + ", in flight: "
					+ redis.node().call("ZRANGE", "warden:task:{reconnected}:inflight", "0", "-1", "WITHSCORES")
					+ ", subscribers: " + subscribers("warden:task:{reconnected}:wake") + ", proxy connections: "
					+ proxy.openConnections())
			.isTrue();
	}

	private static long subscribers(String channel) {
		return (Long) ((List<?>) redis.node().call("PUBSUB", "NUMSUB", channel)).get(1);
	}

}
