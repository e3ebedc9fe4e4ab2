package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.TestClock;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.ratelimit.RateLimit;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task limits on real queues: payloads are {@code tenant:n}, and the tenant is the key.
 */
class TaskLimitsTests {

	private static final ConsumerOptions OPTIONS = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
			Duration.ofSeconds(30));

	private static final Duration WITHIN = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static String tenant(String payload) {
		return payload.substring(0, payload.indexOf(':'));
	}

	@Test
	void twoClientsRunAtMostTwoTasksPerTenantAndTheSmallTenantsFinishFirst() throws Exception {
		TaskLimits limits = TaskLimits.concurrency(2).perKey(String.class, TaskLimitsTests::tenant);
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		Map<String, Integer> most = new ConcurrentHashMap<>();
		List<String> finished = new CopyOnWriteArrayList<>();
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		CountDownLatch smallDone = new CountDownLatch(16);
		TaskHandler<String> handler = delivery -> {
			String tenant = tenant(delivery.payload());
			int now = running.computeIfAbsent(tenant, t -> new AtomicInteger()).incrementAndGet();
			most.merge(tenant, now, Math::max);
			attempts.add(delivery.attempt());
			if (tenant.equals("big")) {
				// The big tenant's work lasts until the small tenants are done: they get through only
				// if the limit leaves them the slots, however fast the machine.
				smallDone.await(30, TimeUnit.SECONDS);
			}
			else {
				// A little work, so that tasks of a tenant overlap when the limit lets them.
				TimeUnit.MILLISECONDS.sleep(10);
			}
			running.get(tenant).decrementAndGet();
			finished.add(tenant);
			if (!tenant.equals("big")) {
				smallDone.countDown();
			}
		};
		Warden producer = clients.open(redis.node());
		DelayedQueue<String> queue = producer.getDelayedQueue("tenants", String.class);
		// The busy tenant's tasks come first in due order: without limits they would all run first.
		for (int i = 0; i < 40; i++) {
			queue.schedule(String.format("a-big-%02d", i), "big:" + i, Duration.ZERO);
		}
		for (String small : List.of("s1", "s2", "s3", "s4")) {
			for (int i = 0; i < 4; i++) {
				queue.schedule("b-" + small + "-" + i, small + ":" + i, Duration.ZERO);
			}
		}
		for (int i = 0; i < 2; i++) {
			clients.open(redis.node(), options -> options.taskConcurrency(4))
				.getDelayedQueue("tenants", String.class)
				.consume(handler, OPTIONS.withLimits(limits));
		}
		Eventually.await("all 56 tasks to run", WITHIN, () -> finished.size() >= 56);

		assertThat(most.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
		assertThat(most.get("big")).isEqualTo(2);
		assertThat(attempts).hasSize(56).containsOnly(1);
		int lastSmall = 0;
		for (int i = 0; i < finished.size(); i++) {
			if (!finished.get(i).equals("big")) {
				lastSmall = i;
			}
		}
		long bigBefore = finished.subList(0, lastSmall).stream().filter("big"::equals).count();
		assertThat(bigBefore).as("big tenant's tasks done when the last small one was").isZero();
		Eventually.await("slots and deferred tasks to be gone", WITHIN,
				() -> zcard("tenants:limit-slots") == 0 && zcard("tenants:limit-parked") == 0);
		assertThat(queue.stats().deferred()).isZero();
	}

	@Test
	void aRateSpacesTheStartsOfOneKeyByRedisClockAndLeavesOtherKeysAlone() throws Exception {
		TaskLimits limits = TaskLimits.rate(RateLimit.of(20, Duration.ofSeconds(1)).withBurst(1))
			.perKey(String.class, TaskLimitsTests::tenant);
		Map<String, List<Long>> starts = new ConcurrentHashMap<>();
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("rated", String.class);
		long scheduled = redisMillis();
		for (int i = 0; i < 8; i++) {
			queue.schedule("a-" + i, "a:" + i, Duration.ZERO);
		}
		queue.schedule("b-0", "b:0", Duration.ZERO);
		queue.schedule("b-1", "b:1", Duration.ZERO);
		queue.consume(delivery -> {
			starts.computeIfAbsent(tenant(delivery.payload()), t -> new CopyOnWriteArrayList<>()).add(redisMillis());
			attempts.add(delivery.attempt());
		}, OPTIONS.withLimits(limits));
		Eventually.await("all 10 tasks to run", WITHIN,
				() -> starts.getOrDefault("a", List.of()).size() == 8 && starts.getOrDefault("b", List.of()).size() == 2);

		// 20 a second, one at a time: the 8th start of "a" comes 7 intervals of 50 ms after the first.
		long lastA = starts.get("a").stream().mapToLong(Long::longValue).max().orElseThrow();
		assertThat(lastA - scheduled).isGreaterThanOrEqualTo(7 * 50);
		assertThat(starts.get("b").stream().mapToLong(Long::longValue).max().orElseThrow()).isLessThan(lastA);
		assertThat(attempts).containsOnly(1);
	}

	@Test
	void aDeferredTaskIsPendingAtItsDueTimeCanBeCancelledAndRunsWhenTheRunningOneEnds() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("one-at-a-time", String.class);
		CountDownLatch firstRuns = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> ran = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> {
			ran.add(delivery.id() + "#" + delivery.attempt());
			if (delivery.id().equals("first")) {
				firstRuns.countDown();
				release.await(30, TimeUnit.SECONDS);
			}
		}, OPTIONS.withLimits(TaskLimits.concurrency(1)));
		queue.schedule("first", "q:1", Duration.ZERO);
		assertThat(firstRuns.await(30, TimeUnit.SECONDS)).isTrue();
		Instant secondDue = queue.schedule("second", "q:2", Duration.ZERO).dueAt();
		queue.schedule("third", "q:3", Duration.ZERO);

		Eventually.await("two tasks to be deferred", WITHIN, () -> queue.stats().deferred() == 2);
		QueueStats stats = queue.stats();
		assertThat(stats.pending()).isEqualTo(2);
		assertThat(stats.inFlight()).isEqualTo(1);
		assertThat(queue.dueAt("second")).contains(secondDue);
		assertThat(queue.pendingTasks(0, 10)).extracting(QueuedTask::id).containsExactly("second", "third");
		assertThat(queue.pendingTasks(0, 10).get(0).dueAt()).isEqualTo(secondDue);
		assertEveryDeferredKeyWakes("one-at-a-time");
		assertThat(queue.cancel("third")).isTrue();
		assertEveryDeferredKeyWakes("one-at-a-time");

		release.countDown();
		Eventually.await("the deferred task to run", WITHIN, () -> ran.contains("second#1"));
		Eventually.await("the deferred index to be empty", WITHIN, () -> zcard("one-at-a-time:limit-parked") == 0);
		assertThat(ran).containsExactly("first#1", "second#1");
	}

	@Test
	void aConsumerWithoutLimitsRunsTheTasksThatLimitsDeferred() throws Exception {
		// One start an hour: the second task waits, deferred, for an hour.
		Warden limited = clients.open(redis.node());
		List<String> ran = new CopyOnWriteArrayList<>();
		DelayedQueue<String> queue = limited.getDelayedQueue("unlimited-later", String.class);
		TaskConsumer consumer = queue.consume(delivery -> ran.add(delivery.id()),
				OPTIONS.withLimits(TaskLimits.rate(RateLimit.of(1, Duration.ofHours(1)))));
		queue.schedule("first", "q:1", Duration.ZERO);
		queue.schedule("second", "q:2", Duration.ZERO);
		Eventually.await("the second task to be deferred", WITHIN,
				() -> ran.contains("first") && queue.stats().deferred() == 1);
		consumer.close();

		// The limits are gone with the next deploy: its consumer runs the deferred task at once, and
		// drops the limits' index at its next sweep, when it finds no deferred task left.
		clients.open(redis.node(), options -> options.taskSweepInterval(Duration.ofMillis(200)))
			.getDelayedQueue("unlimited-later", String.class)
			.consume(delivery -> ran.add(delivery.id()), OPTIONS);
		Eventually.await("the deferred task to run", WITHIN, () -> ran.contains("second"));
		assertThat(ran).containsExactly("first", "second");
		Eventually.await("the limits' index to be gone", WITHIN, () -> zcard("unlimited-later:limit-parked") == 0
				&& zcard("unlimited-later:limit-wakes") == 0);
	}

	@Test
	void theEarlierOfTwoTasksOfAKeyClaimedTogetherIsAdmittedFirst() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("in-order", String.class);
		queue.schedule("a", "first", Duration.ZERO);
		queue.schedule("b", "second", Duration.ZERO);
		// The later task's key is read first, while the earlier one's handler thread still reads its own.
		CountDownLatch secondKeyed = new CountDownLatch(1);
		TaskLimits oneAnHour = TaskLimits.rate(RateLimit.of(1, Duration.ofHours(1))).perKey(String.class, payload -> {
			if (payload.equals("second")) {
				secondKeyed.countDown();
			}
			else {
				Uninterruptibles.await(secondKeyed, WITHIN);
			}
			return "sms:+100";
		});
		List<String> ran = new CopyOnWriteArrayList<>();

		queue.consume(delivery -> ran.add(delivery.id()), OPTIONS.withLimits(oneAnHour));

		Eventually.await("one task run and one deferred", WITHIN, () -> !ran.isEmpty() && queue.stats().deferred() == 1);
		assertThat(ran).containsExactly("a");
	}

	/** Waits on a latch for a bounded time, keeping an interrupt. */
	private static final class Uninterruptibles {

		static void await(CountDownLatch latch, Duration timeout) {
			try {
				latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	@Test
	void aTaskWhoseKeyCannotBeReadFailsItsAttemptWithTheReason() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("keyless", String.class);
		List<String> ran = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> ran.add(delivery.id()), OPTIONS.withMaxAttempts(1)
			.withLimits(TaskLimits.concurrency(1).perKey(String.class, payload -> payload.startsWith("none") ? null : payload)));
		queue.schedule("no-key", "none", Duration.ZERO);
		queue.schedule("keyed", "k", Duration.ZERO);
		Eventually.await("the keyless task to be a dead letter", WITHIN, () -> queue.stats().deadLetters() == 1);
		Eventually.await("the keyed task to run", WITHIN, () -> ran.contains("keyed"));
		List<DeadLetter> dead = new ArrayList<>(queue.deadLetters(0, 10));
		assertThat(dead).singleElement().satisfies(letter -> {
			assertThat(letter.id()).isEqualTo("no-key");
			assertThat(letter.error()).contains("limit key");
		});
		assertThat(ran).containsExactly("keyed");
	}

	/** How a task that a wake-up made due leaves before a claim takes it. */
	enum Removal {

		CANCEL, RESCHEDULE_LATER, REPLACE_LATER

	}

	@ParameterizedTest
	@EnumSource(Removal.class)
	void aTaskMadeDueByAWakeUpAndRemovedBeforeItStartsLeavesItsKeysOtherTasksAWakeUp(Removal removal)
			throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.testClock(true).taskConcurrency(1));
		TestClock clock = warden.testClock().orElseThrow();
		clock.reset();
		String name = "stranded-" + removal.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
		DelayedQueue<String> queue = warden.getDelayedQueue(name, String.class);
		CountDownLatch blockerRuns = new CountDownLatch(1);
		CountDownLatch releaseBlocker = new CountDownLatch(1);
		CountDownLatch fillerRuns = new CountDownLatch(1);
		CountDownLatch releaseFiller = new CountDownLatch(1);
		List<String> ran = new CopyOnWriteArrayList<>();
		// One start an hour per tenant, one handler slot.
		TaskLimits limits = TaskLimits.rate(RateLimit.of(1, Duration.ofHours(1)))
			.perKey(String.class, TaskLimitsTests::tenant);
		queue.consume(delivery -> {
			ran.add(delivery.id());
			if (delivery.id().equals("b-1")) {
				blockerRuns.countDown();
				releaseBlocker.await(30, TimeUnit.SECONDS);
			}
			else if (delivery.id().equals("f-1")) {
				fillerRuns.countDown();
				releaseFiller.await(30, TimeUnit.SECONDS);
			}
		}, OPTIONS.withLimits(limits));
		queue.schedule("k-1", "k:1", Duration.ZERO);
		Instant secondDue = queue.schedule("k-2", "k:2", Duration.ZERO).dueAt();
		queue.schedule("k-3", "k:3", Duration.ZERO);
		Eventually.await("k-1 to run and k-2, k-3 to be deferred", WITHIN,
				() -> ran.contains("k-1") && queue.stats().deferred() == 2);
		assertEveryDeferredKeyWakes(name);

		// Tenant b's task holds the one slot; tenant f's task is due before k-2, so it takes the slot next.
		queue.schedule("b-1", "b:1", Duration.ZERO);
		assertThat(blockerRuns.await(30, TimeUnit.SECONDS)).isTrue();
		queue.schedule("f-1", "f:1", secondDue.minusSeconds(1));
		// The rate allows k's next start: the claim after b-1 makes k-2 due, and takes f-1.
		clock.advance(Duration.ofHours(1).plusSeconds(1));
		releaseBlocker.countDown();
		assertThat(fillerRuns.await(30, TimeUnit.SECONDS)).isTrue();
		Eventually.await("k-2 to be due while f-1 holds the slot", WITHIN, () -> queue.stats().deferred() == 1);
		assertThat(ran).doesNotContain("k-2");
		assertEveryDeferredKeyWakes(name);

		switch (removal) {
			case CANCEL -> assertThat(queue.cancel("k-2")).isTrue();
			case RESCHEDULE_LATER -> assertThat(queue.reschedule("k-2", clock.now().plus(Duration.ofHours(2)))).isTrue();
			case REPLACE_LATER -> assertThat(queue
				.schedule("k-2", "k:2", clock.now().plus(Duration.ofHours(2)), ScheduleOption.REPLACE)
				.dueAt()).isAfter(secondDue);
		}
		assertEveryDeferredKeyWakes(name);
		releaseFiller.countDown();

		// An hour on, the rate allows k's next start again: k-3 runs.
		clock.advance(Duration.ofHours(1).plusSeconds(1));
		clock.wake(name);
		Eventually.await("k-3 to run", WITHIN, () -> ran.contains("k-3"));
		assertEveryDeferredKeyWakes(name);
		assertThat(ran).containsExactly("k-1", "b-1", "f-1", "k-3");
		clock.reset();
	}

	/**
	 * The invariant of the limits' index, read in Redis: every key with entries among a queue's
	 * deferred tasks has a wake-up, so none waits for a wake-up that never comes.
	 */
	private static void assertEveryDeferredKeyWakes(String queue) {
		List<?> entries = (List<?>) redis.node().call("ZRANGE", "warden:task:{" + queue + "}:limit-parked", "0", "-1");
		for (Object entry : entries) {
			String member = (String) entry;
			String key = member.substring(0, member.indexOf('\0'));
			assertThat(redis.node().call("ZSCORE", "warden:task:{" + queue + "}:limit-wakes", key))
				.as("the wake-up of key '%s', which has deferred tasks (%s)", key, member.replace('\0', ' '))
				.isNotNull();
		}
	}

	/** The size of one of the limits' zsets of a queue: {@code <queue>:<suffix>}. */
	private static long zcard(String queueAndSuffix) {
		return (Long) redis.node().call("ZCARD", "warden:task:{" + queueAndSuffix.replace(":", "}:"));
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
