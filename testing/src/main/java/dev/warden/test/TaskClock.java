package dev.warden.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.warden.TestClock;
import dev.warden.Warden;
import dev.warden.task.QueueStats;
import dev.warden.task.interceptor.RecurringTaskRegistrar;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Time travel for the tasks of a {@link WardenTest} application: {@link #advance(Duration)} makes
 * every task that falls due in the time it skips run now, in due order, through the real queue, the
 * real handler bean, its lock and its transaction, and returns what ran.
 * <pre class="code">
 * &#64;Autowired TaskClock clock;
 *
 * &#64;Test
 * void unpaidOrderIsClosed() {
 *     long order = orders.purchase("apple", 2);
 *     List&lt;RanTask&gt; ran = clock.advance(Duration.ofMinutes(30));
 *     assertThat(ran).singleElement().extracting(RanTask::queue).isEqualTo("order-timeout");
 * }
 * </pre>
 * The clock is Redis's: the application's Warden client reads due times from Redis's {@code TIME}
 * plus an offset in Redis that this clock raises ({@link Warden.Builder#testClock(boolean)}), so
 * every client of that Redis with a test clock, such as an {@link OtherInstance}, sees the same time.
 * Retries and their backoff follow it too: a failing task goes through its attempts to its dead
 * letter within one call. Lock leases, which Redis expires by its own clock, are not moved.
 * Standalone Redis only.
 */
public final class TaskClock {

	private static final Log logger = LogFactory.getLog(WardenTest.class);

	/** How many due times one call may step through before it gives up: a task that reschedules itself forever. */
	private static final int MAX_STEPS = 100_000;

	/** How often a queue with due tasks that no consumer took yet is woken again. */
	private static final long REWAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	private final ObjectProvider<Warden> warden;

	private final TaskRecorder recorder;

	private final ObjectProvider<RedisConnectionFactory> connections;

	private final ObjectProvider<RecurringTaskRegistrar> recurring;

	private final ObjectProvider<TestRedisKeys> keys;

	/** Whether {@link #resetBeforeTest()} said once that it leaves this Redis as it is. */
	private volatile boolean notResetLogged;

	/** How long one call waits for the tasks it runs unless told otherwise. */
	static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

	TaskClock(ObjectProvider<Warden> warden, TaskRecorder recorder, ObjectProvider<RedisConnectionFactory> connections,
			ObjectProvider<RecurringTaskRegistrar> recurring, ObjectProvider<TestRedisKeys> keys) {
		this.warden = warden;
		this.recorder = recorder;
		this.connections = connections;
		this.recurring = recurring;
		this.keys = keys;
	}

	/** {@return the time as the application's tasks see it} */
	public Instant now() {
		return clock().now();
	}

	/**
	 * Moves the clock forward by {@code by}, one due time after another: at each, the tasks due run
	 * (and the tasks they schedule, when due by then), and the clock moves on once they have ended.
	 * Tasks due already run first. Only the queues this application consumes are run; a task of
	 * another queue is passed over.
	 * @param by how far; zero runs what is due now
	 * @return the deliveries that ended meanwhile, in the order they ended
	 * @throws IllegalStateException when the tasks have not ended within 30 s, all steps together,
	 * naming what still runs
	 */
	public List<RanTask> advance(Duration by) {
		return advance(by, DEFAULT_TIMEOUT);
	}

	/**
	 * Like {@link #advance(Duration)}, waiting at most {@code timeout} for the tasks, all steps
	 * together.
	 * @param by how far; zero runs what is due now
	 * @param timeout positive
	 * @return the deliveries that ended meanwhile, in the order they ended
	 */
	public List<RanTask> advance(Duration by, Duration timeout) {
		if (by == null || by.isNegative()) {
			throw new IllegalArgumentException("The clock moves forward only: " + by);
		}
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("The timeout must be positive: " + timeout);
		}
		TestClock clock = clock();
		long target = clock.now().toEpochMilli() + by.toMillis();
		return runUntil(clock, target, timeout);
	}

	/**
	 * Moves the clock forward to {@code time} (when it is later than now), as {@link #advance} does.
	 * @param time where to
	 * @return the deliveries that ended meanwhile
	 */
	public List<RanTask> advanceTo(Instant time) {
		TestClock clock = clock();
		return runUntil(clock, Math.max(time.toEpochMilli(), clock.now().toEpochMilli()), DEFAULT_TIMEOUT);
	}

	/**
	 * Runs the tasks due now (a task scheduled without delay, say) and waits until they ended,
	 * without moving the clock.
	 * @return the deliveries that ended meanwhile
	 */
	public List<RanTask> runDue() {
		return advance(Duration.ZERO);
	}

	/**
	 * Starts a test from a clean slate (what {@link WardenTest} does before each test unless
	 * {@link WardenTest#resetBeforeEach()} is {@code false}): deletes Warden's keys in the application's
	 * {@code warden.namespace} ({@code warden} by default) from its Redis — tasks, dead letters and
	 * recurring plans ({@code warden:task:*}), rate limiters ({@code warden:rate:*}), the locks under
	 * {@code warden.lock.key-prefix} with their queues (not the fencing counters, which count for every
	 * lock of their hash slot and never go back), and the clock's offset
	 * ({@code warden:test:clock-offset}, so the clock is Redis's own again); another application's
	 * namespace is not touched — plus the
	 * keys matching {@code warden.test.reset-keys} — forgets what ran, and plans the application's
	 * recurring tasks anew, as at startup. Other keys stay (the registry of live clients,
	 * {@code warden:{fleet}:*}, among them): the keys are found with {@code SCAN} (on
	 * every master of a Cluster) and removed with {@code UNLINK} in batches, never {@code FLUSHALL}.
	 * <p>
	 * A Redis that {@link WardenTest} did not start (a test that sets {@code spring.data.redis.*})
	 * may be shared with other services, some of them using Warden: there it refuses, unless
	 * {@code warden.test.reset-shared-redis=true}.
	 * @throws IllegalStateException on a Redis that {@link WardenTest} did not start, unless allowed
	 */
	public void reset() {
		try (RedisConnection connection = connections.getObject().getConnection()) {
			TestRedisKeys keys = this.keys.getObject();
			keys.requireResettable(connection);
			reset(connection, keys);
		}
	}

	/**
	 * What {@link WardenTest} does before each test (unless {@link WardenTest#resetBeforeEach()} is
	 * {@code false}): {@link #reset()} where it is allowed; on a Redis it may not reset, the recorder
	 * is emptied, nothing in Redis is touched, and the context says so once, at INFO. A test that
	 * names a Redis of its own is not connected to for this unless the reset is allowed there.
	 */
	void resetBeforeTest() {
		TestRedisKeys keys = this.keys.getIfAvailable();
		RedisConnectionFactory factory = connections.getIfAvailable();
		if (keys == null || factory == null || !keys.mayBeResettable()) {
			notReset(keys);
			return;
		}
		try (RedisConnection connection = factory.getConnection()) {
			if (!keys.isResettable(connection)) {
				notReset(keys);
				return;
			}
			reset(connection, keys);
		}
	}

	private void notReset(@Nullable TestRedisKeys keys) {
		recorder.clear();
		if (!notResetLogged) {
			notResetLogged = true;
			logger.info("@WardenTest does not reset Warden's keys and the test clock before each test: the "
					+ "application's Redis is not the one @WardenTest started (the test sets spring.data.redis.*) and "
					+ "may be shared with other services. Set " + TestRedisKeys.RESET_SHARED_REDIS + "=true to reset it"
					+ ((keys != null) ? " (only the keys matching " + keys.patterns() + " are deleted)" : "")
					+ ", or @WardenTest(resetBeforeEach = false) to keep the state between tests on purpose");
		}
	}

	private void reset(RedisConnection connection, TestRedisKeys keys) {
		RecurringTaskRegistrar jobs = recurring.getIfAvailable();
		boolean replan = jobs != null && jobs.isRunning();
		if (replan) {
			jobs.stop();
		}
		keys.delete(connection);
		recorder.clear();
		if (replan) {
			jobs.start();
		}
	}

	private List<RanTask> runUntil(TestClock clock, long target, Duration timeout) {
		int from = recorder.size();
		long deadline = System.nanoTime() + timeout.toNanos();
		Set<String> queues = warden().consumedQueues();
		for (int step = 0;; step++) {
			settle(clock, queues, deadline, timeout);
			long now = clock.now().toEpochMilli();
			long next = earliestDue(queues);
			if (next < 0 || next > target) {
				break;
			}
			if (step >= MAX_STEPS) {
				throw new IllegalStateException("The clock stepped through " + MAX_STEPS + " due times and tasks are "
						+ "still due before " + Instant.ofEpochMilli(target) + ": does a task schedule itself again "
						+ "without end?");
			}
			if (next > now) {
				clock.advance(Duration.ofMillis(next - now));
			}
		}
		long now = clock.now().toEpochMilli();
		if (now < target) {
			clock.advance(Duration.ofMillis(target - now));
		}
		return recorder.since(from);
	}

	/** The earliest due time among the queues' pending tasks; -1 when none is pending. */
	private long earliestDue(Set<String> queues) {
		long earliest = -1;
		for (QueueStats stats : warden().queueStats(queues)) {
			Instant due = stats.nextDueAt();
			if (due != null && (earliest < 0 || due.toEpochMilli() < earliest)) {
				earliest = due.toEpochMilli();
			}
		}
		return earliest;
	}

	/** Waits until no task of the queues is due now or runs, waking their consumers as needed. */
	private void settle(TestClock clock, Set<String> queues, long deadline, Duration timeout) {
		Map<String, Long> woken = new HashMap<>();
		while (true) {
			long now = clock.now().toEpochMilli();
			List<String> busy = new ArrayList<>();
			for (QueueStats stats : warden().queueStats(queues)) {
				Instant due = stats.nextDueAt();
				boolean dueNow = due != null && due.toEpochMilli() <= now;
				if (dueNow || stats.inFlight() > 0) {
					busy.add(stats.queue() + " (" + stats.inFlight() + " in flight, next due at " + due + ")");
				}
				Long last = woken.get(stats.queue());
				if (dueNow && (last == null || System.nanoTime() - last > REWAKE_NANOS)) {
					clock.wake(stats.queue());
					woken.put(stats.queue(), System.nanoTime());
				}
			}
			int running = recorder.running();
			if (busy.isEmpty() && running == 0) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Tasks did not end within " + timeout.toMillis() + " ms at "
						+ Instant.ofEpochMilli(now) + " (test clock): " + running + " handler(s) running; " + busy);
			}
			try {
				recorder.awaitChange(2);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for tasks", ex);
			}
		}
	}

	private TestClock clock() {
		return warden().testClock()
			.orElseThrow(() -> new IllegalStateException("The application's Warden client has no test clock: it was "
					+ "not built by Warden's auto-configuration (a Warden bean of the application's own?); build it "
					+ "with Warden.Builder.testClock(true)"));
	}

	private Warden warden() {
		return warden.getObject();
	}

}
