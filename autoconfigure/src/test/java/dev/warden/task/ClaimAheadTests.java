package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer claims the tasks due within its claim-ahead window together with a due one, and
 * starts each when it is due. Each test schedules a task "first" and a task "second" due
 * {@value #GAP_MILLIS} ms later; with a claim-ahead window of 1 s, the claim that takes "first"
 * takes "second" too, and "first"'s handler acts on "second" while it waits for its due time.
 */
class ClaimAheadTests {

	private static final long GAP_MILLIS = 800;

	private static final ConsumerOptions OPTIONS = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
			Duration.ofSeconds(30));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final List<String> ran = new CopyOnWriteArrayList<>();

	private Warden client(Duration claimAhead) {
		return clients.open(redis.node(),
				options -> options.taskClaimAhead(claimAhead).shutdownGrace(Duration.ofSeconds(10)));
	}

	/**
	 * Consumes the queue: "first"'s handler applies {@code whileSecondWaits} to the queue and
	 * completes the returned future with its result; every delivery is recorded in {@link #ran} as
	 * id=payload#attempt@redis-millis-at-start.
	 */
	private <R> CompletableFuture<R> consume(DelayedQueue<String> queue, Function<DelayedQueue<String>, R> whileSecondWaits) {
		CompletableFuture<R> result = new CompletableFuture<>();
		queue.consume(delivery -> {
			ran.add(delivery.id() + "=" + delivery.payload() + "#" + delivery.attempt() + "@" + redisMillis());
			if (delivery.id().equals("first")) {
				try {
					result.complete(whileSecondWaits.apply(queue));
				}
				catch (RuntimeException ex) {
					result.completeExceptionally(ex);
				}
			}
		}, OPTIONS);
		return result;
	}

	/**
	 * Schedules "first" soon and "second" {@value #GAP_MILLIS} ms after it; returns second's due time.
	 * "second" goes first, so that it is pending when "first" is claimed however slowly the calls
	 * return: the claim of "first", or one before it, takes "second" ahead.
	 */
	private static Instant scheduleFirstAndSecond(DelayedQueue<String> queue) {
		Instant first = Instant.ofEpochMilli(redisMillis() + 200);
		Instant second = first.plusMillis(GAP_MILLIS);
		queue.schedule("second", "x", second);
		queue.schedule("first", "x", first);
		return second;
	}

	@Test
	void aTaskClaimedAheadStartsWhenItIsDueByRedisClock() throws Exception {
		DelayedQueue<String> queue = client(Duration.ofSeconds(1)).getDelayedQueue("ahead-starts", String.class);
		CompletableFuture<List<Object>> seen = consume(queue, q -> List.of(q.list(0, 10),
				q.dueAt("second").orElseThrow(), q.schedule("second", "again", Duration.ZERO)));
		Instant secondDue = scheduleFirstAndSecond(queue);

		List<Object> whileWaiting = seen.get(10, TimeUnit.SECONDS);
		assertThat(whileWaiting.get(0)).as("claimed, so no longer listed as pending").isEqualTo(List.of());
		assertThat(whileWaiting.get(1)).isEqualTo(secondDue);
		assertThat(whileWaiting.get(2)).isEqualTo(new ScheduleResult(ScheduleResult.Status.ALREADY_PENDING, secondDue));

		awaitBothRanAndAcknowledged(queue);
		assertThat(startOf("second")).isGreaterThanOrEqualTo(secondDue.toEpochMilli());
		assertThat(ran).anyMatch(run -> run.startsWith("second=x#1@"));
	}

	@Test
	void aCancelledTaskClaimedAheadNeverStarts() throws Exception {
		Warden warden = client(Duration.ofSeconds(1));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead-cancelled", String.class);
		CompletableFuture<Boolean> cancelled = consume(queue, q -> q.cancel("second"));
		Instant secondDue = scheduleFirstAndSecond(queue);
		queue.schedule("sentinel", "x", secondDue.plusMillis(300));

		assertThat(cancelled.get(10, TimeUnit.SECONDS)).isTrue();
		Eventually.await("the sentinel ran", () -> ran.stream().anyMatch(run -> run.startsWith("sentinel=")));
		assertThat(ran).extracting(run -> run.substring(0, run.indexOf('='))).containsExactly("first", "sentinel");
		Eventually.await("acknowledged", () -> queue.size() == 0);
		// The revoked task gave its handler slot back: the consumer stops idle at once.
		assertThat(warden.stopConsumers()).isTrue();
	}

	@Test
	void aRescheduledTaskClaimedAheadIsPendingAgainAndRunsOnceAtItsNewTime() throws Exception {
		DelayedQueue<String> queue = client(Duration.ofSeconds(1)).getDelayedQueue("ahead-rescheduled", String.class);
		CompletableFuture<List<Object>> moved = consume(queue, q -> {
			Instant later = Instant.ofEpochMilli(redisMillis() + 2 * GAP_MILLIS);
			return List.of(q.reschedule("second", later), later, q.list(0, 10).stream().map(PendingTask::id).toList());
		});
		scheduleFirstAndSecond(queue);

		List<Object> outcome = moved.get(10, TimeUnit.SECONDS);
		assertThat(outcome.get(0)).isEqualTo(true);
		assertThat(outcome.get(2)).isEqualTo(List.of("second"));
		Instant later = (Instant) outcome.get(1);
		awaitBothRanAndAcknowledged(queue);
		assertThat(startOf("second")).isGreaterThanOrEqualTo(later.toEpochMilli());
		assertThat(ran).as("the revoked claim was not an attempt").anyMatch(run -> run.startsWith("second=x#1@"));
	}

	@Test
	void aTaskClaimedAheadThenMadeDueAtOnceRunsOnceAndFreesItsFirstClaimsSlot() throws Exception {
		// The consumer claims "second" again at once; the revocation of its first claim may reach it
		// before or after that claim's reply, and either way the first claim is dropped.
		Warden warden = client(Duration.ofSeconds(1));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead-now", String.class);
		CompletableFuture<Boolean> moved = consume(queue, q -> q.reschedule("second", Duration.ZERO));
		scheduleFirstAndSecond(queue);

		assertThat(moved.get(10, TimeUnit.SECONDS)).isTrue();
		assertSecondRanOnceUnderItsNewClaim(warden, queue);
	}

	@Test
	void aCancelWhoseRevocationMessageIsLostStillStopsTheTaskClaimedAhead() throws Exception {
		// What a cancel does in Redis, without its revocation message (pub/sub delivers at most
		// once): the consumer's start confirmation fails, and the handler never runs.
		Warden warden = client(Duration.ofSeconds(1));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead-lost", String.class);
		String keys = "warden:task:{ahead-lost}:";
		CompletableFuture<Object> cancelled = consume(queue, q -> {
			redis.node().call("ZREM", keys + "inflight", "second");
			redis.node().call("HDEL", keys + "tasks", "second");
			// A claim ahead is kept in format 1 in every format of tasks: a:, c: and d:.
			return redis.node().call("HDEL", keys + "meta", "a:second", "c:second", "d:second");
		});
		Instant secondDue = scheduleFirstAndSecond(queue);
		queue.schedule("sentinel", "x", secondDue.plusMillis(300));

		assertThat(cancelled.get(10, TimeUnit.SECONDS)).isEqualTo(3L);
		Eventually.await("the sentinel ran", () -> ran.stream().anyMatch(run -> run.startsWith("sentinel=")));
		assertThat(ran).extracting(run -> run.substring(0, run.indexOf('='))).containsExactly("first", "sentinel");
		// The dropped task gave its handler slot back: the consumer stops idle at once.
		assertThat(warden.stopConsumers()).isTrue();
	}

	@Test
	void aRunningTaskIsNotCancelledAndCompletes() throws Exception {
		Warden warden = client(Duration.ofSeconds(1));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead-running", String.class);
		CompletableFuture<Boolean> cancelled = consume(queue, q -> q.cancel("first"));
		scheduleFirstAndSecond(queue);

		assertThat(cancelled.get(10, TimeUnit.SECONDS)).as("cancel of the running task").isFalse();
		awaitBothRanAndAcknowledged(queue);
		assertThat(ran).hasSize(2);
	}

	@Test
	void aClaimAheadWhoseRevocationWasMissedGivesWayToTheConsumersNewClaimOfTheTask() throws Exception {
		// What a reschedule to now does in Redis, without its revocation message (pub/sub delivers
		// at most once): the consumer learns of it only from its next claim, which takes "second"
		// again under a new token.
		Warden warden = client(Duration.ofSeconds(1));
		DelayedQueue<String> queue = warden.getDelayedQueue("ahead-missed", String.class);
		String keys = "warden:task:{ahead-missed}:";
		CompletableFuture<Object> moved = consume(queue, q -> {
			redis.node().call("ZREM", keys + "inflight", "second");
			redis.node().call("HDEL", keys + "meta", "c:second", "d:second");
			redis.node().call("HINCRBY", keys + "meta", "a:second", "-1");
			redis.node().call("ZADD", keys + "due", "0", "second");
			return redis.node().call("PUBLISH", keys + "wake", "0");
		});
		scheduleFirstAndSecond(queue);

		assertThat(moved.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
		assertSecondRanOnceUnderItsNewClaim(warden, queue);
	}

	/**
	 * "second" ran once, as its first attempt, and the claim that waited ended: stopping finds no
	 * delivery left, so it does not wait out the grace period.
	 */
	private void assertSecondRanOnceUnderItsNewClaim(Warden warden, DelayedQueue<String> queue) throws Exception {
		awaitBothRanAndAcknowledged(queue);
		assertThat(ran).anyMatch(run -> run.startsWith("second=x#1@"));
		assertThat(warden.stopConsumers()).isTrue();
		assertThat(ran).hasSize(2);
	}

	@Test
	void aReplacedTaskClaimedAheadRunsOnlyAsItsReplacement() throws Exception {
		DelayedQueue<String> queue = client(Duration.ofSeconds(1)).getDelayedQueue("ahead-replaced", String.class);
		// Due beyond the window: the consumer does not claim the replacement at once.
		CompletableFuture<ScheduleResult> replaced = consume(queue,
				q -> q.schedule("second", "new", Duration.ofMillis(2 * GAP_MILLIS), ScheduleOption.REPLACE));
		scheduleFirstAndSecond(queue);

		assertThat(replaced.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScheduleResult.Status.REPLACED);
		awaitBothRanAndAcknowledged(queue);
		assertThat(ran).anyMatch(run -> run.startsWith("second=new#1@"));
	}

	@Test
	void stoppingHandsTheTasksClaimedAheadBackForAnotherInstanceToRunWhenDue() throws Exception {
		Warden warden;
		DelayedQueue<String> queue;
		Instant secondDue;
		String name;
		for (int attempt = 1;; attempt++) {
			name = "ahead-stopped-" + attempt;
			warden = client(Duration.ofSeconds(1));
			queue = warden.getDelayedQueue(name, String.class);
			consume(queue, q -> null);
			// The first due at once, the second at the end of the window: claimed ahead with the
			// first, and the consumers stop as soon as the first has run, with the most time before
			// the second is due that the window allows. A claim that comes before the first is due
			// (the consumer may look at its queue at any time) takes the first ahead too, and until
			// it starts, stopping hands it back as well: what is tested is the task still waiting.
			queue.schedule("first", "x", Instant.ofEpochMilli(redisMillis() + 20));
			secondDue = Instant.ofEpochMilli(redisMillis() + 950);
			queue.schedule("second", "x", secondDue);
			String meta = "warden:task:{" + name + "}:meta";
			AtomicBoolean claimedAhead = new AtomicBoolean();
			Eventually.holdsWithin(Duration.ofSeconds(10), () -> {
				claimedAhead.compareAndSet(false, (Long) redis.node().call("HEXISTS", meta, "d:second") == 1L);
				return (claimedAhead.get() && ran.stream().anyMatch(run -> run.startsWith("first=")))
						|| ran.stream().anyMatch(run -> run.startsWith("second="));
			});
			if (claimedAhead.get()) {
				break;
			}
			// A machine too loaded to claim within the window claimed "second" only when it was due:
			// the setting up failed, not what is tested, so once more on a queue of its own.
			assertThat(attempt).as("claimed ahead within three tries").isLessThan(3);
			warden.stopConsumers();
			ran.clear();
		}

		assertThat(warden.stopConsumers()).isTrue();

		// Pending again, at its own due time, and its claim did not count as an attempt.
		Instant due = secondDue;
		assertThat(queue.list(0, 10)).singleElement().satisfies(task -> {
			assertThat(task.id()).isEqualTo("second");
			assertThat(task.dueAt()).isEqualTo(due);
		});
		DelayedQueue<String> elsewhere = client(Duration.ofSeconds(1)).getDelayedQueue(name, String.class);
		consume(elsewhere, q -> null);
		awaitBothRanAndAcknowledged(elsewhere);
		assertThat(ran).anyMatch(run -> run.startsWith("second=x#1@"));
		assertThat(startOf("second")).isGreaterThanOrEqualTo(secondDue.toEpochMilli());
	}

	@Test
	void withoutAWindowOnlyDueTasksAreClaimed() throws Exception {
		DelayedQueue<String> queue = client(Duration.ZERO).getDelayedQueue("ahead-none", String.class);
		CompletableFuture<List<String>> pending = consume(queue,
				q -> q.list(0, 10).stream().map(PendingTask::id).toList());
		scheduleFirstAndSecond(queue);

		assertThat(pending.get(10, TimeUnit.SECONDS)).containsExactly("second");
		awaitBothRanAndAcknowledged(queue);
	}

	/** Waits until "first" and "second" have run and left the queue. */
	private void awaitBothRanAndAcknowledged(DelayedQueue<String> queue) throws InterruptedException {
		Eventually.await("both ran and were acknowledged", () -> ran.size() == 2 && queue.size() == 0);
	}

	/** When "id"'s handler started, by Redis's clock. */
	private long startOf(String id) {
		return ran.stream()
			.filter(run -> run.startsWith(id + "="))
			.mapToLong(run -> Long.parseLong(run.substring(run.indexOf('@') + 1)))
			.findFirst()
			.orElseThrow();
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
