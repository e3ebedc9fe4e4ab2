package dev.warden.test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Warden;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.EndedDelivery.Outcome;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.task.annotation.TaskLimit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import static dev.warden.test.WardenAssertions.assertThatLocks;
import static dev.warden.test.WardenAssertions.assertThatQueue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test clock, the task modes and the lock recorder, as an application's tests use them: a
 * 30-minute timeout, retries and a nightly job run in milliseconds, through the real queue.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(classes = TaskClockTests.Application.class, properties = "warden.recurring.misfire-threshold=1m")
@WardenTest
class TaskClockTests {

	@Autowired
	TaskClock clock;

	@Autowired
	TaskModes tasks;

	@Autowired
	LockRecorder locks;

	@Autowired
	TaskRecorder recorder;

	@Autowired
	Warden warden;

	@Autowired
	Orders orders;

	@Autowired
	Ledger ledger;

	@BeforeEach
	void clean() {
		clock.reset();
		// Every test starts at 03:00 UTC, the nightly job (02:00) just behind it: an advance of less
		// than 23 hours then runs no occurrence of it, whatever the time of day the suite runs at.
		Instant now = clock.now();
		Instant threeAm = now.truncatedTo(ChronoUnit.DAYS).plus(Duration.ofHours(3));
		clock.advanceTo(threeAm.isAfter(now) ? threeAm : threeAm.plus(Duration.ofDays(1)));
		recorder.clear();
		ledger.closed.clear();
		ledger.attempts.set(0);
		ledger.filed.clear();
		ledger.runs.clear();
	}

	@Test
	void aTaskRunsWhenTheClockReachesItsDueTimeAndNotBefore() {
		Instant start = clock.now();
		orders.closeIfUnpaid(42L, "apple");
		assertThatQueue(warden, "order-timeout").hasTask("42").dueIn(Duration.ofMinutes(30)).hasArguments(42L, "apple");
		assertThat(PendingTasks.of(warden, "order-timeout")).singleElement().satisfies(task -> {
			assertThat(task.arguments()).containsExactly(42L, "apple");
			assertThat(task.argument(0, long.class)).isEqualTo(42L);
			assertThat(task.dueAt()).isBetween(start.plus(Duration.ofMinutes(30)), clock.now().plus(Duration.ofMinutes(30)));
		});
		assertThatThrownBy(() -> assertThatQueue(warden, "order-timeout").hasTask("42").hasArguments(42L, "pear"))
			.hasMessageContaining("Expected task '42' to have the arguments [42, pear] but it has [42, apple]");

		assertThat(clock.advance(Duration.ofMinutes(29).plusSeconds(59))).isEmpty();
		assertThat(ledger.closed).isEmpty();

		List<RanTask> ran = clock.advance(Duration.ofSeconds(1));

		assertThat(ran).singleElement().satisfies(task -> {
			assertThat(task.queue()).isEqualTo("order-timeout");
			assertThat(task.id()).isEqualTo("42");
			assertThat(task.attempt()).isEqualTo(1);
			assertThat(task.outcome()).isEqualTo(Outcome.COMPLETED);
			assertThat(task.argument(0, Long.class)).isEqualTo(42L);
			assertThat(task.arguments()).element(1).isEqualTo("apple");
		});
		assertThat(ledger.closed).containsExactly("42:apple");
		assertThatQueue(warden, "order-timeout").hasNoPendingTasks();
		assertThat(clock.now()).isAfterOrEqualTo(start.plus(Duration.ofMinutes(30)));
		assertThatLocks(locks).held("order:42").by(Orders.class, "closeIfUnpaid").times(1);
		assertThatLocks(locks).neverHeld("order:43");
	}

	@Test
	void tasksRunInDueOrderAndTheTasksTheyScheduleRunInTheSameAdvance() {
		orders.closeIfUnpaid(2L, "pear");
		orders.closeIfUnpaidSoon(1L, "fig");

		List<RanTask> ran = clock.advance(Duration.ofHours(2));

		assertThat(ran).extracting(RanTask::id).containsExactly("1", "2", "1-again");
		assertThat(ledger.closed).containsExactly("1:fig", "2:pear", "1-again:fig");
	}

	@Test
	void withoutAnAdvanceNothingRunsInRealTime() throws Exception {
		orders.closeIfUnpaidSoon(5L, "kiwi");

		assertThat(clock.runDue()).isEmpty();
		assertThatQueue(warden, "order-timeout-soon").hasTask("5").dueIn(Duration.ofMinutes(10));
		assertThat(ledger.closed).isEmpty();
	}

	@Test
	void aRateLimitedQueueStartsItsTasksAsTheClockAllows() {
		for (int i = 1; i <= 3; i++) {
			orders.sendSms("sms-" + i, "+100");
		}

		// One message an hour per number: the first when due, each other an hour later, none lost. (Due
		// in a minute, not at once: a task due now runs in real time, before any advance.)
		assertThat(clock.advance(Duration.ofMinutes(1))).extracting(RanTask::id).containsExactly("sms-1");
		assertThat(clock.advance(Duration.ofMinutes(58))).isEmpty();
		assertThat(clock.advance(Duration.ofMinutes(2))).extracting(RanTask::id).containsExactly("sms-2");
		assertThat(clock.advance(Duration.ofHours(1))).extracting(RanTask::id).containsExactly("sms-3");
		assertThat(clock.advance(Duration.ofHours(1))).isEmpty();
		assertThat(ledger.closed).containsExactly("sms-1", "sms-2", "sms-3");
	}

	@Test
	void retriesFollowTheClockToTheDeadLetter() {
		orders.charge("c-1");

		List<RanTask> ran = clock.advance(Duration.ofHours(1));

		assertThat(ran).extracting(RanTask::outcome).containsExactly(Outcome.RETRIED, Outcome.RETRIED, Outcome.DEAD_LETTER);
		assertThat(ran).allSatisfy(task -> assertThat(task.failure()).hasMessage("card declined"));
		assertThat(ledger.attempts).hasValue(3);
		assertThatQueue(warden, "charges").hasNoPendingTasks().hasDeadLetter("c-1").contains("card declined");
	}

	@Test
	void aRecurringTaskRunsOncePerOccurrenceInTheTimeSkipped() {
		List<RanTask> ran = clock.advance(Duration.ofDays(3));

		assertThat(ledger.runs).hasSize(3);
		assertThat(ran).filteredOn(task -> task.id().startsWith("nightly@")).hasSize(3).allMatch(RanTask::completed);
		for (int i = 1; i < 3; i++) {
			assertThat(Duration.between(ledger.runs.get(i - 1), ledger.runs.get(i)))
				.isBetween(Duration.ofDays(1).minusSeconds(5), Duration.ofDays(1).plusSeconds(5));
		}
	}

	@Test
	void inlineRunsTheMethodAtOnceWithItsArgumentsReadBack() {
		tasks.inline();
		Receipt receipt = new Receipt("r-1", List.of("apple", "pear"));

		orders.file(receipt);

		assertThat(ledger.filed).singleElement().isEqualTo(receipt).isNotSameAs(receipt);
		assertThat(tasks.calls()).singleElement().satisfies(call -> {
			assertThat(call.queue()).isEqualTo("receipts");
			assertThat(call.payload()).contains("\"pear\"");
		});
		assertThatQueue(warden, "receipts").hasNoPendingTasks();
		assertThatLocks(locks).held("receipt:r-1").by(Orders.class, "file");
	}

	@Test
	void inlinePassesOnWhatTheMethodThrows() {
		tasks.inline();

		assertThatThrownBy(() -> orders.charge("c-2")).hasMessage("card declined");
	}

	@Test
	void fakeRecordsTheCallAndRunsNothing() {
		tasks.fake();

		orders.closeIfUnpaid(9L, "plum");

		assertThat(tasks.calls()).singleElement().satisfies(call -> {
			assertThat(call.queue()).isEqualTo("order-timeout");
			assertThat(call.id()).isEqualTo("9");
			assertThat(call.delay()).isEqualTo(Duration.ofMinutes(30));
			assertThat(call.arguments()).containsExactly(9L, "plum");
		});
		assertThatQueue(warden, "order-timeout").hasNoPendingTasks();
		assertThat(clock.advance(Duration.ofHours(1))).isEmpty();
		assertThat(ledger.closed).isEmpty();
	}

	@Test
	@Order(1)
	void aTestLeavesTheFakeModeOn() {
		tasks.fake();
		orders.closeIfUnpaid(11L, "lime");
		assertThat(tasks.calls()).hasSize(1);
	}

	@Test
	@Order(2)
	void theNextTestSchedulesAgain() {
		assertThat(tasks.mode()).isEqualTo(TaskModes.Mode.QUEUE);
		assertThat(tasks.calls()).isEmpty();
		assertThat(recorder.ran()).isEmpty();
		assertThat(locks.held()).isEmpty();

		orders.closeIfUnpaid(12L, "lime");

		assertThatQueue(warden, "order-timeout").hasTask("12");
	}

	@Test
	void theArgumentsOfATaskWithoutADelayedTaskMethodAreNotGuessed() {
		List<RanTask> ran = clock.advance(Duration.ofDays(1));

		assertThat(ran).isNotEmpty();
		assertThatThrownBy(() -> ran.get(0).arguments()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("has no @DelayedTask method in this application");
	}

	@Test
	void aHandlerThatDoesNotEndFailsTheAdvanceNamingItsQueue() throws Exception {
		orders.block("b-1");
		try {
			assertThatThrownBy(() -> clock.advance(Duration.ofMinutes(1), Duration.ofMillis(500)))
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("blocking (1 in flight");
		}
		finally {
			ledger.release.countDown();
		}
		clock.runDue();
		assertThat(recorder.ran()).singleElement().satisfies(task -> {
			assertThat(task.id()).isEqualTo("b-1");
			assertThat(task.completed()).isTrue();
		});
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

		@Bean
		FollowUps followUps() {
			return new FollowUps();
		}

		@Bean
		Nightly nightly() {
			return new Nightly();
		}

	}

	record Receipt(String id, List<String> items) {
	}

	/** What the handlers did: a bean of its own, since the handlers' beans are proxies. */
	static class Ledger {

		final List<String> closed = new CopyOnWriteArrayList<>();

		final List<Receipt> filed = new CopyOnWriteArrayList<>();

		final AtomicInteger attempts = new AtomicInteger();

		final CountDownLatch release = new CountDownLatch(1);

		final List<Instant> runs = new CopyOnWriteArrayList<>();

	}

	static class Orders {

		@Autowired
		Ledger ledger;

		@DelayedTask(queue = "order-timeout", delay = "30m", id = "#orderId")
		@DistributedLock(name = "order", key = "#orderId")
		public void closeIfUnpaid(long orderId, String sku) {
			ledger.closed.add(orderId + ":" + sku);
		}

		@DelayedTask(queue = "order-timeout-soon", delay = "10m", id = "#orderId")
		public void closeIfUnpaidSoon(long orderId, String sku) {
			ledger.closed.add(orderId + ":" + sku);
			if (orderId == 1L) {
				// A task that schedules another, due within the same advance.
				followUps.closeIfUnpaidAgain("1-again", sku);
			}
		}

		@DelayedTask(queue = "charges", delay = "1m", id = "#id", maxAttempts = 3, backoff = "10m")
		public void charge(String id) {
			ledger.attempts.incrementAndGet();
			throw new IllegalStateException("card declined");
		}

		@DelayedTask(queue = "receipts", delay = "1h", id = "#receipt.id()")
		@DistributedLock(name = "receipt", key = "#receipt.id()")
		public void file(Receipt receipt) {
			ledger.filed.add(receipt);
		}

		@DelayedTask(queue = "sms", delay = "1m", id = "#id", limit = @TaskLimit(key = "#number", rate = "1", period = "1h"))
		public void sendSms(String id, String number) {
			ledger.closed.add(id);
		}

		@DelayedTask(queue = "blocking", delay = "1m", id = "#id")
		public void block(String id) throws InterruptedException {
			ledger.release.await(30, TimeUnit.SECONDS);
		}

		@Autowired
		FollowUps followUps;

	}

	static class FollowUps {

		@Autowired
		Ledger ledger;

		@DelayedTask(queue = "order-timeout-again", delay = "1h", id = "#id")
		public void closeIfUnpaidAgain(String id, String sku) {
			ledger.closed.add(id + ":" + sku);
		}

	}

	static class Nightly {

		@Autowired
		Ledger ledger;

		@Autowired
		TaskClock clock;

		@RecurringTask(name = "nightly", cron = "0 0 2 * * *", zone = "UTC")
		public void report() {
			ledger.runs.add(clock.now());
		}

	}

}
