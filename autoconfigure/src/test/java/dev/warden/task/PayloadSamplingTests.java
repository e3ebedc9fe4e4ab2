package dev.warden.task;

import java.time.Duration;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deploy changed a task's payload type while tasks of the old shape were pending: the new
 * consumer says so when it starts, naming the queue, how many and which, long before they are due.
 */
@ExtendWith(OutputCaptureExtension.class)
class PayloadSamplingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** The payload as the previous version wrote it. */
	public record OldOrder(String id) {
	}

	/** The payload as this version reads it: the id became a number. */
	public record NewOrder(long id) {
	}

	@Test
	void aConsumerSaysWhichPendingTasksItCannotReadWhenItStarts(CapturedOutput output) throws Exception {
		Warden previous = clients.open(redis.node());
		DelayedQueue<OldOrder> old = previous.getDelayedQueue("evolving", OldOrder.class);
		old.schedule("o-1", new OldOrder("A-17"), Duration.ofMinutes(30));
		old.schedule("o-2", new OldOrder("A-18"), Duration.ofMinutes(31));
		old.schedule("o-3", new OldOrder("42"), Duration.ofMinutes(32));

		Warden next = clients.open(redis.node());
		next.getDelayedQueue("evolving", NewOrder.class).consume(delivery -> {
		});

		Eventually.await("the warning", Duration.ofSeconds(30), () -> output.toString().contains("Queue 'evolving'"));
		assertThat(output).contains("Queue 'evolving': 2 of its 3 earliest pending tasks (o-1, o-2)")
			.contains("cannot be read with the classes deployed now")
			.doesNotContain("o-3");
		assertThat(old.size()).as("nothing moved").isEqualTo(3);
	}

	@Test
	void aConsumerChecksOnDemandWhatWasScheduledSinceItStarted() throws Exception {
		Warden next = clients.open(redis.node());
		try (TaskConsumer consumer = next.getDelayedQueue("evolving-later", NewOrder.class).consume(delivery -> {
		})) {
			assertThat(next.checkPayloads("evolving-later")).hasValueSatisfying(check -> assertThat(check.clean()).isTrue());
			DelayedQueue<OldOrder> old = clients.open(redis.node()).getDelayedQueue("evolving-later", OldOrder.class);
			old.schedule("o-1", new OldOrder("A-17"), Duration.ofMinutes(30));
			old.schedule("o-2", new OldOrder("7"), Duration.ofMinutes(31));

			PayloadCheck check = next.checkPayloads("evolving-later").orElseThrow();

			assertThat(check.pendingSampled()).isEqualTo(2);
			assertThat(check.pendingUnreadable()).containsExactly("o-1");
			assertThat(check.reason()).contains("A-17");
			assertThat(next.checkPayloads("not-consumed")).isEmpty();
		}
		assertThat(next.checkPayloads("evolving-later")).as("once its consumer stopped").isEmpty();
	}

	/**
	 * 24 pending tasks of 900 KB: a check reads them one at a time, stops at its budget of 16 MiB
	 * (the first 18), and says so; Redis sends no more than that budget, never the whole queue in one
	 * reply.
	 */
	@Test
	void aCheckReadsWholePayloadsOneAtATimeWithinItsBudget() throws Exception {
		Warden next = clients.open(redis.node());
		try (TaskConsumer consumer = next.getDelayedQueue("large", String.class).consume(delivery -> {
		})) {
			Eventually.await("the check at the consumer's start", Duration.ofSeconds(30), () -> Thread.getAllStackTraces()
				.keySet()
				.stream()
				.noneMatch(thread -> thread.getName().equals("warden-payload-check-large")));
			DelayedQueue<String> large = clients.open(redis.node()).getDelayedQueue("large", String.class);
			String payload = "x".repeat(900_000);
			for (int i = 0; i < 24; i++) {
				large.schedule("large-" + i, payload, Duration.ofHours(2).plusSeconds(i));
			}

			long before = netOutputBytes();
			PayloadCheck check = next.checkPayloads("large").orElseThrow();
			long sent = netOutputBytes() - before;

			assertThat(sent).as("bytes Redis sent for one check").isLessThan(17L * 1024 * 1024);
			assertThat(check.budgetReached()).isTrue();
			assertThat(check.pendingSampled()).isEqualTo(18);
			assertThat(check.pendingUnreadable()).as("whole payloads were decoded, not excerpts").isEmpty();
			assertThat(check.deadLettersSampled()).isZero();
		}
	}

	private static long netOutputBytes() {
		String info = (String) redis.node().call("INFO", "stats");
		return Long.parseLong(info.replaceAll("(?s).*total_net_output_bytes:(\\d+).*", "$1"));
	}

}
