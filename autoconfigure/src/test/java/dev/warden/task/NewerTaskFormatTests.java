package dev.warden.task;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * A task written by a later version of Warden, which marks the stored format its reader needs
 * ({@code n:<id>} in the queue's meta hash): this version leaves it in the queue unrun, its attempts
 * unspent, makes it a dead letter with the reason past the grace, keeps the mark through a re-drive,
 * and drops the state kept in {@code x:<id>} (a claim, in tasks format 2) with the task.
 */
class NewerTaskFormatTests {

	private static final String META = "warden:task:{newer}:meta";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void aTaskOfANewerStoredFormatIsLeftUnrunWithoutStallingTheOthers() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("newer", String.class);
		queue.schedule("later", "x", Duration.ZERO);
		redis.node().call("HSET", META, "n:later", "3");
		queue.schedule("current", "y", Duration.ZERO);
		AtomicInteger laterRuns = new AtomicInteger();
		CountDownLatch currentRan = new CountDownLatch(1);

		try (TaskConsumer consumer = queue.consume(delivery -> {
			if (delivery.id().equals("later")) {
				laterRuns.incrementAndGet();
			}
			else {
				currentRan.countDown();
			}
		})) {
			assertThat(currentRan.await(30, TimeUnit.SECONDS)).as("a task of this format runs").isTrue();
			Eventually.await("left once", Duration.ofSeconds(30),
					() -> redis.node().call("HGET", META, "l:later") != null);
		}

		assertThat(laterRuns).as("never run here").hasValue(0);
		assertThat(queue.contains("later")).as("still pending").isTrue();
		QueuedTask later = queue.pendingTask("later").orElseThrow();
		assertThat(later.attempts()).as("no attempt spent").isZero();
		assertThat(later.lastError()).contains("needs stored format 3", "reads format 2");
		assertThat(queue.deadLetterCount()).isZero();
	}

	@Test
	void pastTheGraceItIsADeadLetterThatKeepsWhatItNeedsThroughAReDrive() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.taskNewerFormatGrace(Duration.ofMillis(300)));
		DelayedQueue<String> queue = warden.getDelayedQueue("newer", String.class);
		queue.schedule("later", "x", Duration.ZERO);
		redis.node().call("HSET", META, "n:later", "3", "x:later", "1 a-claim-of-format-2:1:1:x");
		AtomicInteger runs = new AtomicInteger();

		try (TaskConsumer consumer = queue.consume(delivery -> runs.incrementAndGet())) {
			Eventually.await("a dead letter", Duration.ofSeconds(30), () -> queue.deadLetterCount() == 1);
		}
		DeadLetter letter = queue.deadLetter("later").orElseThrow();
		assertThat(letter.error()).contains("left by instances that cannot read it", "needs stored format 3");
		assertThat(letter.attempts()).isZero();
		assertThat(redis.node().call("HKEYS", META)).as("nothing of the task left in meta").isEqualTo(List.of());

		assertThat(queue.requeueDeadLetter("later")).isTrue();
		assertThat(redis.node().call("HGET", META, "n:later")).as("the mark is back").isEqualTo("3");
		assertThat(redis.node().call("HGET", META, "x:later")).as("a claim is not put back").isNull();
		try (TaskConsumer consumer = queue.consume(delivery -> runs.incrementAndGet())) {
			Eventually.await("left again", Duration.ofSeconds(30),
					() -> redis.node().call("HGET", META, "l:later") != null || queue.deadLetterCount() == 1);
		}
		assertThat(runs).as("never run by this version").hasValue(0);
	}

	@Test
	void aLaterVersionsStateOfATaskGoesWithTheTask() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("newer", String.class);
		queue.schedule("cancelled", "x", Duration.ofHours(1));
		queue.schedule("completed", "y", Duration.ZERO);
		redis.node().call("HSET", META, "x:cancelled", "state", "n:cancelled", "1", "x:completed", "state");

		assertThat(queue.cancel("cancelled")).isTrue();
		CountDownLatch ran = new CountDownLatch(1);
		try (TaskConsumer consumer = queue.consume(delivery -> ran.countDown())) {
			assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
			Eventually.await("acknowledged", Duration.ofSeconds(30), () -> !queue.contains("completed"));
		}
		Eventually.await("no meta left", Duration.ofSeconds(30),
				() -> List.of().equals(redis.node().call("HKEYS", META)));
	}

}
