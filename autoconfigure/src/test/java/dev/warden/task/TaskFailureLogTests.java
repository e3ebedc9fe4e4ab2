package dev.warden.task;

import java.time.Duration;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every failed attempt of a task is one WARN line an operator can act on, and a dead letter one
 * ERROR line with the reason and the stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class TaskFailureLogTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void eachFailedAttemptIsOneWarnLineAndTheDeadLetterOneErrorLineWithItsStackTrace(CapturedOutput output)
			throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("logged", String.class);
		queue.consume(delivery -> {
			throw new IllegalStateException("payment service down");
		}, new ConsumerOptions(2, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1)));

		queue.schedule("t-1", "x", Duration.ZERO);
		// The task reaches the dead letters before its ERROR line is written: wait for the line.
		Eventually.await("the dead letter's log line", () -> output.toString().contains("moved to the dead letters"));

		assertThat(queue.deadLetters()).hasSize(1);
		assertThat(output).contains("WARN")
			.contains("Task 't-1' of queue 'logged' failed on attempt 1 of 2; next attempt in 50 ms: "
					+ "java.lang.IllegalStateException: payment service down")
			.contains("ERROR")
			.contains("Task 't-1' of queue 'logged' failed on attempt 2 of 2 and moved to the dead letters: "
					+ "java.lang.IllegalStateException: payment service down")
			.contains("at dev.warden.task.TaskFailureLogTests");
	}

	@Test
	void aConsumerStartedWithoutOptionsTakesItsQueuesOwnDefaults() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node(), options -> options.taskQueueDefaults("once",
				new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1))))
			.getDelayedQueue("once", String.class);
		queue.consume(delivery -> {
			throw new IllegalStateException("no retry here");
		});

		queue.schedule("t-1", "x", Duration.ZERO);
		Eventually.await("a dead letter", () -> !queue.deadLetters().isEmpty());

		assertThat(queue.deadLetters().get(0).attempts()).as("the queue's max attempts").isEqualTo(1);
	}

	@Test
	void anUnreadablePayloadIsOneErrorLineWithTheReason(CapturedOutput output) throws Exception {
		DelayedQueue<Integer> queue = clients.open(redis.node()).getDelayedQueue("unreadable", Integer.class);
		redis.node().call("HSET", "warden:task:{unreadable}:tasks", "bad", "\"not a number\"");
		redis.node().call("ZADD", "warden:task:{unreadable}:due", "0", "bad");
		queue.consume(delivery -> {
		});

		Eventually.await("the dead letter's log line", () -> output.toString().contains("moved to the dead letters"));

		assertThat(queue.deadLetters()).hasSize(1);
		assertThat(output).contains("ERROR")
			.contains("Task 'bad' of queue 'unreadable' moved to the dead letters: its payload cannot be read");
	}

}
