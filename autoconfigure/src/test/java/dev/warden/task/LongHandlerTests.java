package dev.warden.task;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that runs longer than the visibility timeout keeps its claim, as a lock's watchdog keeps
 * its lease: no other consumer gets the task while it runs, and the end of another delivery of its
 * id on the same consumer does not end the extension of its claim.
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

	@Test
	void theEndOfAReplacedDeliveryLeavesTheNewDeliveryOfItsIdRunningUnderItsClaim() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.taskSweepInterval(Duration.ofMillis(100)));
		DelayedQueue<String> queue = warden.getDelayedQueue("replaced-long", String.class);
		CountDownLatch oldRuns = new CountDownLatch(1);
		CountDownLatch finishOld = new CountDownLatch(1);
		CountDownLatch newRuns = new CountDownLatch(1);
		CountDownLatch finishNew = new CountDownLatch(1);
		CountDownLatch redelivered = new CountDownLatch(1);
		AtomicReference<TaskClaim> oldClaim = new AtomicReference<>();
		AtomicReference<TaskClaim> newClaim = new AtomicReference<>();
		List<String> deliveries = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> {
			deliveries.add(delivery.payload() + "#" + delivery.attempt());
			if (delivery.payload().equals("old")) {
				oldClaim.set(TaskClaim.current());
				oldRuns.countDown();
				finishOld.await(30, TimeUnit.SECONDS);
			}
			else if (delivery.attempt() == 1) {
				newClaim.set(TaskClaim.current());
				newRuns.countDown();
				finishNew.await(30, TimeUnit.SECONDS);
			}
			else {
				redelivered.countDown();
			}
		}, SHORT_VISIBILITY);
		queue.schedule("order-1", "old", Duration.ZERO);
		assertThat(oldRuns.await(10, TimeUnit.SECONDS)).isTrue();

		// Replaced while its handler runs: the same consumer runs the new schedule next to the old one.
		queue.schedule("order-1", "new", Duration.ZERO, ScheduleOption.REPLACE);
		assertThat(newRuns.await(10, TimeUnit.SECONDS)).isTrue();
		Eventually.await("the old delivery told that its claim is lost", () -> oldClaim.get().isLost());
		finishOld.countDown();

		// The old delivery ended; five visibility timeouts pass while the new one runs on.
		assertThat(redelivered.await(1500, TimeUnit.MILLISECONDS)).as("the new delivery delivered again while it ran")
			.isFalse();
		assertThat(newClaim.get().isLost()).isFalse();
		finishNew.countDown();

		Eventually.await("the new delivery acknowledged", () -> !queue.contains("order-1")
				&& Long.valueOf(0).equals(redis.node().call("ZCARD", "warden:task:{replaced-long}:inflight")));
		assertThat(deliveries).containsExactly("old#1", "new#1");
		assertThat(queue.deadLetters()).isEmpty();
	}

}
