package dev.warden.task;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that runs longer than the visibility timeout keeps its claim, as a lock's watchdog keeps
 * its lease: no other consumer gets the task while it runs.
 */
class LongHandlerTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static final ConsumerOptions SHORT_VISIBILITY = new ConsumerOptions(3, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMillis(300));

	@Test
	void aHandlerRunningFiveVisibilityTimeoutsIsNotDeliveredAgainMeanwhile() throws Exception {
		Warden first = clients.open(redis.node(), options -> options.taskSweepInterval(Duration.ofMillis(100)));
		Warden second = clients.open(redis.node(), options -> options.taskSweepInterval(Duration.ofMillis(100)));
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicInteger deliveries = new AtomicInteger();
		first.getDelayedQueue("long", String.class).consume(delivery -> {
			deliveries.incrementAndGet();
			started.countDown();
			finish.await(30, TimeUnit.SECONDS);
		}, SHORT_VISIBILITY);
		first.getDelayedQueue("long", String.class).schedule("slow", "x", Duration.ZERO);
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		// A second service consumes the same queue once the first one's handler runs.
		CountDownLatch redelivered = new CountDownLatch(1);
		second.getDelayedQueue("long", String.class).consume(delivery -> {
			deliveries.incrementAndGet();
			redelivered.countDown();
		}, SHORT_VISIBILITY);

		// Five visibility timeouts pass while the handler runs: nobody gets the task again.
		assertThat(redelivered.await(1500, TimeUnit.MILLISECONDS)).isFalse();
		finish.countDown();

		DelayedQueue<String> queue = first.getDelayedQueue("long", String.class);
		Eventually.await("the task acknowledged", () -> !queue.contains("slow")
				&& Long.valueOf(0).equals(redis.node().call("ZCARD", "warden:task:{long}:inflight")));
		assertThat(deliveries).hasValue(1);
		assertThat(queue.deadLetters()).isEmpty();
	}

}
