package dev.warden.task;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A completed task leaves nothing in its queue's meta hash, whichever of its optional fields it had:
 * the completion deletes the fields its claim token names, so each way a field comes to be is
 * covered — a failed delivery (e:), a task left by an instance that could not read it (l:, with and
 * without its deliveries count), a trace context (h:), a format mark (n:), a later version's state
 * (x:), a claim ahead of the due time (d:, which its start deletes) and a task-limit key (k:).
 */
class TaskMetaCleanupTests {

	private static final ConsumerOptions FAST_RETRY = ConsumerOptions.DEFAULTS.withBackoff(Duration.ofMillis(20));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeEach
	void empty() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void aTaskThatFailedOnceLeavesNoMetaFieldsWhenItCompletes() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("retried", String.class);
		AtomicInteger runs = new AtomicInteger();
		queue.schedule("t-1", "x", Duration.ZERO);
		try (TaskConsumer consumer = queue.consume(delivery -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("first delivery fails");
			}
		}, FAST_RETRY)) {
			Eventually.await("completed on the second delivery", () -> runs.get() == 2 && idle("retried"));
		}
		assertThat(meta("retried")).isEmpty();
	}

	@Test
	void fieldsOfAnotherVersionAndOfALeftTaskGoWithTheTask() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("foreign", String.class);
		queue.schedule("marked", "x", Duration.ofHours(1));
		queue.schedule("left", "x", Duration.ofHours(1));
		String meta = "warden:task:{foreign}:meta";
		// A format mark a reader of format 1 reads, a later version's state, a trace context.
		redis.node().call("HSET", meta, "n:marked", "1", "x:marked", "{\"later\":true}", "h:marked", "traceparent");
		// Left once by an instance that could not read it, its delivery not counted: no a: field.
		redis.node().call("HSET", meta, "l:left", "1", "e:left", "left for a later version", "x:left", "state");
		queue.reschedule("marked", Duration.ZERO);
		queue.reschedule("left", Duration.ZERO);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		try (TaskConsumer consumer = queue.consume(delivery -> ran.add(delivery.id()), FAST_RETRY)) {
			Eventually.await("both ran", () -> ran.size() == 2 && idle("foreign"));
		}
		assertThat(meta("foreign")).isEmpty();
	}

	@Test
	void aTaskClaimedAheadLeavesNoMetaFields() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.taskClaimAhead(Duration.ofSeconds(1)));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead", String.class);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		try (TaskConsumer consumer = queue.consume(delivery -> ran.add(delivery.id()), FAST_RETRY)) {
			for (String id : List.of("a-1", "a-2", "a-3")) {
				queue.schedule(id, "x", Duration.ofMillis(300));
			}
			Eventually.await("all ran", () -> ran.size() == 3 && idle("ahead"));
		}
		assertThat(meta("ahead")).isEmpty();
	}

	@Test
	void aTaskOfALimitedQueueLeavesNoMetaFields() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("limited", String.class);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		for (String id : List.of("k-1", "k-2", "k-3", "k-4")) {
			queue.schedule(id, id.substring(2), Duration.ZERO);
		}
		try (TaskConsumer consumer = queue.consume(delivery -> ran.add(delivery.id()),
				FAST_RETRY.withLimits(TaskLimits.concurrency(1).perKey(String.class, payload -> payload)))) {
			Eventually.await("all ran", () -> ran.size() == 4 && idle("limited"));
		}
		assertThat(meta("limited")).isEmpty();
	}

	private static boolean idle(String queue) {
		String keys = "warden:task:{" + queue + "}:";
		return (Long) redis.node().call("ZCARD", keys + "due") == 0 && (Long) redis.node().call("ZCARD", keys + "inflight") == 0;
	}

	@SuppressWarnings("unchecked")
	private static List<Object> meta(String queue) {
		return (List<Object>) redis.node().call("HKEYS", "warden:task:{" + queue + "}:meta");
	}

}
