package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Dead letters read a page at a time, counted, put back by failure time, purged by age and trimmed
 * by a retention, on a real Redis; dead letters stored before the failure-time index existed are
 * indexed as they are read.
 */
class DeadLetterAdministrationTests {

	private static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMinutes(1));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void pagesGoFromTheMostRecentFailureBackAndCoverEveryLetterOnce() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("paged", String.class);
		killTasks(queue, "t-", 25);

		assertThat(queue.deadLetterCount()).isEqualTo(25);
		List<DeadLetter> seen = new ArrayList<>();
		for (int offset = 0; offset < 30; offset += 10) {
			seen.addAll(queue.deadLetters(offset, 10));
		}
		assertThat(seen).hasSize(25);
		assertThat(seen).extracting(DeadLetter::id).doesNotHaveDuplicates();
		for (int i = 1; i < seen.size(); i++) {
			assertThat(seen.get(i).failedAt()).isBeforeOrEqualTo(seen.get(i - 1).failedAt());
		}
		assertThat(seen).allSatisfy(letter -> assertThat(letter.error()).contains("no stock"));
		assertThat(queue.deadLetters(25, 10)).isEmpty();
	}

	@Test
	void deadLettersThatFailedWithinARangeArePutBackAndTheOthersStay() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("range", String.class);
		killTasks(queue, "early-", 3);
		Instant boundary = Instant.ofEpochMilli(redisMillis() + 1);
		awaitRedisPast(boundary.toEpochMilli());
		killTasks(queue, "late-", 2);

		long requeued = queue.requeueDeadLetters(Instant.EPOCH, boundary);

		assertThat(requeued).isEqualTo(3);
		assertThat(queue.deadLetters(0, 10)).extracting(DeadLetter::id).containsExactlyInAnyOrder("late-0", "late-1");
		assertThat(queue.list(0, 10)).extracting(PendingTask::id).containsExactlyInAnyOrder("early-0", "early-1",
				"early-2");
		assertThat(queue.requeueDeadLetters(Instant.EPOCH, boundary)).as("nothing left in the range").isZero();
		assertThat(redis.node().call("ZCARD", "warden:task:{range}:dead-at")).isEqualTo(2L);
	}

	@Test
	void purgingByAgeDeletesTheOlderLettersAndTheirIndex() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("purged", String.class);
		killTasks(queue, "old-", 4);
		Instant boundary = Instant.ofEpochMilli(redisMillis() + 1);
		awaitRedisPast(boundary.toEpochMilli());
		killTasks(queue, "new-", 1);

		assertThat(queue.purgeDeadLetters(boundary)).isEqualTo(4);

		assertThat(queue.deadLetters()).extracting(DeadLetter::id).containsExactly("new-0");
		assertThat(redis.node().call("ZCARD", "warden:task:{purged}:dead-at")).isEqualTo(1L);
		assertThat(queue.deleteDeadLetter("new-0")).isTrue();
		assertThat(queue.purgeDeadLetters(Instant.MAX)).isZero();
		assertThat(redis.node().call("EXISTS", "warden:task:{purged}:dead", "warden:task:{purged}:dead-at"))
			.isEqualTo(0L);
	}

	@Test
	void aRetentionTrimsOlderLettersWhenAnotherTaskDies() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.taskDeadLetterRetention(Duration.ofMillis(300)));
		DelayedQueue<String> queue = warden.getDelayedQueue("retained", String.class);
		killTasks(queue, "first-", 2);
		awaitRedisPast(queue.deadLetters(0, 1).get(0).failedAt().toEpochMilli() + 300);

		killTasks(queue, "second-", 1);

		assertThat(queue.deadLetters()).extracting(DeadLetter::id).containsExactly("second-0");
		assertThat(queue.deadLetterCount()).isEqualTo(1);
	}

	@Test
	void deadLettersKeptBeforeTheIndexAreIndexedWhenRead() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("legacy", String.class);
		redis.node().call("HSET", "warden:task:{legacy}:dead", "kept",
				"{\"id\":\"kept\",\"payload\":\"\\\"x\\\"\",\"attempts\":5,\"error\":\"boom\",\"failedAt\":1000}");

		assertThat(queue.deadLetterCount()).isEqualTo(1);
		assertThat(queue.deadLetters(0, 10)).singleElement().satisfies(letter -> {
			assertThat(letter.id()).isEqualTo("kept");
			assertThat(letter.failedAt()).isEqualTo(Instant.ofEpochMilli(1000));
		});
		assertThat(queue.requeueDeadLetters(Instant.EPOCH, Instant.ofEpochMilli(2000))).isEqualTo(1);
		assertThat(queue.contains("kept")).isTrue();
	}

	@Test
	void badPagesAndRangesAreRefused() {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("refused", String.class);

		assertThatIllegalArgumentException().isThrownBy(() -> queue.deadLetters(-1, 10))
			.withMessageContaining("offset -1");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.deadLetters(0, 0)).withMessageContaining("limit 0");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.deadLetters(0, 1001));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.requeueDeadLetters(null, Instant.now()))
			.withMessageContaining("failedFrom");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.purgeDeadLetters(null));
	}

	/** Schedules {@code count} tasks that fail on their only attempt, and waits until all are dead letters. */
	private void killTasks(DelayedQueue<String> queue, String prefix, int count) throws InterruptedException {
		Set<String> ids = new HashSet<>();
		for (int i = 0; i < count; i++) {
			ids.add(prefix + i);
			queue.schedule(prefix + i, "payload", Duration.ZERO);
		}
		try (TaskConsumer consumer = queue.consume(delivery -> {
			throw new IllegalStateException("no stock for " + delivery.id());
		}, ONE_ATTEMPT)) {
			Eventually.await(count + " dead letters", Duration.ofSeconds(20), () -> queue.deadLetters()
				.stream()
				.map(DeadLetter::id)
				.toList()
				.containsAll(ids));
		}
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
	}

	private static void awaitRedisPast(long millis) throws InterruptedException {
		Eventually.await("Redis's clock past " + millis, Duration.ofSeconds(10), () -> redisMillis() > millis);
	}

}
