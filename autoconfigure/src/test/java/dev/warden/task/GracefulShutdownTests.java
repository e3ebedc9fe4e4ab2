package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * One of two instances stops while tasks are running, claimed ahead and due: it lets its running
 * handlers finish, hands back what it claimed but did not start, and every task runs exactly once.
 */
class GracefulShutdownTests {

	private static final int TASKS = 300;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void stoppingOneOfTwoInstancesMidStreamRunsEveryTaskExactlyOnce() throws Exception {
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		AtomicInteger ranOnStopped = new AtomicInteger();
		CountDownLatch midStream = new CountDownLatch(TASKS / 4);
		Warden stopping = instance();
		Warden staying = instance();
		consume(stopping, runs, ranOnStopped, midStream);
		consume(staying, runs, new AtomicInteger(), midStream);

		// Due over about two seconds, so that tasks run, wait claimed ahead and wait in the queue at once.
		DelayedQueue<String> queue = staying.getDelayedQueue("shutdown", String.class);
		Instant start = Instant.ofEpochMilli(redisMillis() + 300);
		for (int i = 0; i < TASKS; i++) {
			queue.schedule("t-" + i, "x", start.plusMillis(i * 7L));
		}
		assertThat(midStream.await(20, TimeUnit.SECONDS)).isTrue();

		assertThat(stopping.stopConsumers()).as("running handlers finished within the grace period").isTrue();
		clients.close(stopping);

		Eventually.await("every task ran", Duration.ofSeconds(20), () -> runs.size() == TASKS && queue.size() == 0);
		assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
		assertThat(ranOnStopped.get()).as("the stopped instance ran part of them").isPositive().isLessThan(TASKS);
		assertThat(redis.node().call("ZCARD", "warden:task:{shutdown}:inflight")).isEqualTo(0L);
		assertThat(queue.deadLetters()).isEmpty();
	}

	private Warden instance() {
		return clients.open(redis.node(), options -> options.taskClaimAhead(Duration.ofMillis(200))
			.taskConcurrency(4)
			.shutdownGrace(Duration.ofSeconds(10)));
	}

	private static void consume(Warden warden, Map<String, AtomicInteger> runs, AtomicInteger ranHere,
			CountDownLatch midStream) {
		warden.getDelayedQueue("shutdown", String.class).consume(delivery -> {
			runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			ranHere.incrementAndGet();
			midStream.countDown();
			// Work that takes a while, so that some is under way when the instance stops.
			Thread.sleep(5);
		});
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
