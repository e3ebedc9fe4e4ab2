package dev.warden.statemachine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Eventually;
import dev.warden.OlderFleetMember;
import dev.warden.TestClock;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.ratelimit.RateLimit;
import dev.warden.redis.LuaScript;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleOption;
import dev.warden.task.ScheduleResult;
import dev.warden.task.TaskClaim;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskLimits;
import dev.warden.task.transaction.TaskOutbox;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Random sequences of what applications and operators do to a queue — schedule (with and without
 * {@code REPLACE}), cancel, reschedule, handlers that complete, fail or outlive their visibility
 * timeout, a consumer stopped and started again — on two clients consuming one queue with task
 * limits per key, checked against the documentation's promises:
 * <ul>
 * <li>no delivery of a task runs twice at once unless the older one's claim is reported lost;</li>
 * <li>a key's concurrency and start rate are never exceeded;</li>
 * <li>every key with deferred tasks has something that will look at it again (a wake-up, a running
 * task of the key, or a due one), after every step;</li>
 * <li>a pending task runs unless cancelled, and no key is blocked for good: once the sequence ends
 * and the handlers let go, every task owed a run completes;</li>
 * <li>what the queue leaves in Redis is bounded.</li>
 * </ul>
 * Handlers are held by the test until an operation completes or fails them, so the claims, slots
 * and wake-ups under test stay in play across many operations.
 */
class TaskStateMachineTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static final String QUEUE = "machine";

	private static final int IDS = 4;

	private static final int KEYS = 2;

	private static final Duration VISIBILITY = Duration.ofMillis(900);

	/** A key's start rate in the limited runs: one start per interval, no burst. */
	private static final RateLimit RATE = RateLimit.of(2, Duration.ofSeconds(1)).withBurst(1);

	/**
	 * How much closer two starts of a key may seem on this side than Redis admitted them, ms: the
	 * handler threads start a little after their admission, each after its own delay.
	 */
	private static final long RATE_SLACK_MILLIS = 300;

	/** How long a claim's extension takes to notice that it was lost: two of its periods, ms. */
	private static final long NOTICE_NANOS = TimeUnit.MILLISECONDS.toNanos(VISIBILITY.toMillis() * 2 / 3);

	/** The limits a sequence's consumers apply, chosen by its first operation. */
	enum Limits {

		NONE(TaskLimits.NONE), CONCURRENCY(TaskLimits.concurrency(1).perKey(String.class, TaskStateMachineTests::keyOf)),
		RATE_LIMIT(TaskLimits.rate(TaskStateMachineTests.RATE).perKey(String.class, TaskStateMachineTests::keyOf)),
		BOTH(TaskLimits.concurrency(1).withRate(TaskStateMachineTests.RATE).perKey(String.class, TaskStateMachineTests::keyOf));

		final TaskLimits limits;

		Limits(TaskLimits limits) {
			this.limits = limits;
		}

	}

	sealed interface Operation permits Configure, Schedule, Cancel, Reschedule, Complete, Fail, Restart, Pause,
			Transaction, Advance {
	}

	/** The limits of the sequence's consumers, and how many handlers each client runs at once. */
	record Configure(Limits limits, int slots) implements Operation {
	}

	record Schedule(int id, int key, long delayMillis, boolean replace) implements Operation {
	}

	record Cancel(int id) implements Operation {
	}

	record Reschedule(int id, long delayMillis) implements Operation {
	}

	/** Lets the n-th oldest held handler (modulo how many there are) return. */
	record Complete(int nth) implements Operation {
	}

	/** Lets the n-th oldest held handler throw: its task is retried. */
	record Fail(int nth) implements Operation {
	}

	/** Stops a consumer with no grace, its handlers abandoned, and starts another in its place. */
	record Restart(int consumer) implements Operation {
	}

	record Pause(long millis) implements Operation {
	}

	/**
	 * Moves Redis's test clock on: tasks fall due, and the claims of handlers running longer than a
	 * visibility timeout by that clock lapse and are delivered again.
	 */
	record Advance(long millis) implements Operation {
	}

	/**
	 * A database transaction on the first client, whose task writes go through the outbox: it
	 * schedules {@code outer} new tasks, then in a nested block (a savepoint) {@code nested} more and
	 * a cancel of a task scheduled before; the block fails (its savepoint rolled back) or not, and the
	 * transaction commits or rolls back.
	 */
	record Transaction(int outer, int nested, int cancelled, boolean nestedFails, boolean commits) implements Operation {
	}

	static List<Operation> generate(Random random, int steps) {
		List<Operation> operations = new ArrayList<>(steps + 1);
		operations.add(new Configure(Limits.values()[random.nextInt(Limits.values().length)], 1 + random.nextInt(2)));
		long[] delays = { 0, 0, 50, 200, 600 };
		for (int i = 0; i < steps; i++) {
			int id = random.nextInt(IDS);
			switch (random.nextInt(20)) {
				case 0, 1, 2, 3 -> operations.add(new Schedule(id, random.nextInt(KEYS),
						delays[random.nextInt(delays.length)], false));
				case 4, 5, 6 -> operations.add(new Schedule(id, random.nextInt(KEYS), delays[random.nextInt(delays.length)], true));
				case 7, 8 -> operations.add(new Cancel(id));
				case 9 -> operations.add(new Reschedule(id, delays[random.nextInt(delays.length)]));
				case 10, 11, 12 -> operations.add(new Complete(random.nextInt(4)));
				case 13 -> operations.add(new Fail(random.nextInt(4)));
				case 14 -> operations.add(new Restart(random.nextInt(2)));
				case 15 -> operations.add(new Transaction(random.nextInt(3), random.nextInt(3), id, random.nextBoolean(),
						random.nextInt(4) > 0));
				case 16 -> operations.add(new Advance(new long[] { 300, 1_000, 5_000 }[random.nextInt(3)]));
				default -> operations.add(new Pause(20 + random.nextInt(300)));
			}
		}
		return operations;
	}

	@Test
	void randomSchedulesCancelsAndHandlersKeepEveryPromise() throws Exception {
		new StateMachine<>("delayed queue", TaskStateMachineTests::generate, this::run, 90_000, 1)
			.check(StateMachine.baseSeed(0x7a5c5L), StateMachine.sequences(5), StateMachine.steps(40));
	}

	/**
	 * The same promises while the two clients keep claims in different stored formats of tasks (as
	 * during a rolling deploy from a version that reads only format 1): each claims, extends, fails,
	 * hands back and completes what the other claimed, or takes it over when its claim lapses.
	 */
	@Test
	void clientsWritingTheTwoFormatsOfTasksKeepEveryPromise() throws Exception {
		new StateMachine<>("delayed queue, formats 1 and 2", TaskStateMachineTests::generate,
				operations -> run(operations, true), 90_000, 1)
			.check(StateMachine.baseSeed(0x2f0a7L), StateMachine.sequences(3), StateMachine.steps(40));
	}

	static String keyOf(String payload) {
		return payload.substring(0, payload.indexOf('|'));
	}

	void run(List<Operation> operations) throws Exception {
		run(operations, false);
	}

	/**
	 * Runs the operations with two clients; with {@code mixedFormats}, the first keeps its claims in
	 * tasks format 1 (it started while an instance that reads only format 1 was live, and does not
	 * look again), the second in format 2.
	 */
	void run(List<Operation> operations, boolean mixedFormats) throws Exception {
		redis.node().call("FLUSHALL");
		Configure configure = (Configure) operations.get(0);
		Limits limits = configure.limits();
		ConsumerOptions options = new ConsumerOptions(100, Duration.ofMillis(50), Duration.ofMillis(50), VISIBILITY,
				limits.limits);
		World world = new World(limits);
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:machine-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
		AtomicReference<Warden> transactional = new AtomicReference<>();
		TaskOutbox outbox = new TaskOutbox(dataSource, "warden_task_outbox", transactional::get, Set.of(),
				Duration.ofSeconds(10), Duration.ofHours(1));
		outbox.checkTable(connection -> true);
		DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
		TransactionTemplate outer = new TransactionTemplate(manager);
		TransactionTemplate nested = new TransactionTemplate(manager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		Warden[] wardens = new Warden[2];
		try (OlderFleetMember older = mixedFormats ? OlderFleetMember.readingTasksFormat1(redis.node()) : null) {
			wardens[0] = clients.open(redis.node(), builder -> builder.taskConcurrency(configure.slots())
				.taskWriteDeferral(outbox)
				.testClock(true)
				.fleetAnnounceInterval(mixedFormats ? Duration.ofHours(1) : Duration.ofSeconds(10)));
		}
		wardens[1] = clients.open(redis.node(), builder -> builder.taskConcurrency(configure.slots()).testClock(true));
		if (mixedFormats && (wardens[0].writeFormats().get("tasks") != 1 || wardens[1].writeFormats().get("tasks") != 2)) {
			throw new AssertionError("Formats 1 and 2 expected, written: " + wardens[0].writeFormats() + " and "
					+ wardens[1].writeFormats());
		}
		TestClock clock = wardens[0].testClock().orElseThrow();
		world.clockOf(clock);
		transactional.set(wardens[0]);
		List<DelayedQueue<String>> queues = List.of(wardens[0].getDelayedQueue(QUEUE, String.class),
				wardens[1].getDelayedQueue(QUEUE, String.class));
		TaskConsumer[] consumers = new TaskConsumer[2];
		int[] generations = new int[2];
		for (int i = 0; i < 2; i++) {
			consumers[i] = world.consume(queues.get(i), options, i + "/0");
		}
		try {
			int step = 0;
			for (Operation operation : operations.subList(1, operations.size())) {
				step++;
				String at = "step " + step + " (" + operation + ")";
				DelayedQueue<String> queue = queues.get(step % 2);
				if (operation instanceof Schedule schedule) {
					String id = "t" + schedule.id();
					String payload = "k" + schedule.key() + "|" + world.incarnations.incrementAndGet();
					long asked = world.clock.incrementAndGet();
					ScheduleResult result = schedule.replace()
							? queue.schedule(id, payload, Duration.ofMillis(schedule.delayMillis()), ScheduleOption.REPLACE)
							: queue.schedule(id, payload, Duration.ofMillis(schedule.delayMillis()));
					world.scheduled(id, payload, asked, result);
				}
				else if (operation instanceof Cancel cancel) {
					String id = "t" + cancel.id();
					if (queue.cancel(id)) {
						world.cancelled(id);
					}
				}
				else if (operation instanceof Reschedule reschedule) {
					if (queue.reschedule("t" + reschedule.id(), Duration.ofMillis(reschedule.delayMillis()))) {
						world.rescheduled("t" + reschedule.id());
					}
				}
				else if (operation instanceof Complete complete) {
					world.release(complete.nth(), false);
				}
				else if (operation instanceof Fail fail) {
					world.release(fail.nth(), true);
				}
				else if (operation instanceof Restart restart) {
					int index = restart.consumer();
					world.abandon(index + "/" + generations[index]);
					consumers[index].stop(Duration.ZERO);
					generations[index]++;
					consumers[index] = world.consume(queues.get(index), options, index + "/" + generations[index]);
				}
				else if (operation instanceof Pause pause) {
					Thread.sleep(pause.millis());
				}
				else if (operation instanceof Advance advance) {
					clock.advance(Duration.ofMillis(advance.millis()));
					world.advancedNanos = System.nanoTime();
					clock.wake(QUEUE);
				}
				else if (operation instanceof Transaction transaction) {
					world.transact(transaction, queues.get(0), outer, nested);
				}
				world.check(at);
			}
			world.drain(redis);
		}
		finally {
			outbox.close();
			world.letGo();
			for (TaskConsumer consumer : consumers) {
				consumer.stop(Duration.ofSeconds(2));
			}
			for (Warden warden : wardens) {
				warden.close();
			}
		}
	}

	/** One delivery on this side: a handler that started and waits for the test's word. */
	static final class Run {

		final String id;

		final String payload;

		final String key;

		final String consumer;

		final TaskClaim claim;

		final long started;

		final long startedNanos = System.nanoTime();

		/** When it started by the test clock, ms: the clock a key's start rate is counted by. */
		long clockStarted;

		final CompletableFuture<Boolean> outcome = new CompletableFuture<>();

		volatile boolean ended;

		volatile long endedNanos;

		volatile boolean abandoned;

		Run(String id, String payload, String consumer, TaskClaim claim, long started) {
			this.id = id;
			this.payload = payload;
			this.key = keyOf(payload);
			this.consumer = consumer;
			this.claim = claim;
			this.started = started;
		}

		@Override
		public String toString() {
			return id + "=" + payload + "@" + consumer;
		}

	}

	/** The model: what was scheduled and what ran, and the promises checked against them. */
	static final class World {

		final Limits limits;

		/** A logical clock ordering calls and handler starts. */
		final AtomicLong clock = new AtomicLong();

		final AtomicLong incarnations = new AtomicLong();

		final List<Run> runs = new CopyOnWriteArrayList<>();

		/** Per task id, the call that made the run it is owed (cleared by a cancel or a completed run). */
		final Map<String, Long> owed = new HashMap<>();

		/** Per task id, the logical time of the last call that stored, moved or cancelled it. */
		final Map<String, Long> lastWrite = new HashMap<>();

		/** Per task id, every payload it had: the keys a delivery of it may hold. */
		final Map<String, Set<String>> payloads = new HashMap<>();

		/** Promises that may be broken: checked once the claims involved had time to be reported lost. */
		final List<Suspect> suspects = new CopyOnWriteArrayList<>();

		final List<String> broken = new CopyOnWriteArrayList<>();

		/** Tasks of transactions that rolled back, or of their failed nested blocks: they never run. */
		final Set<String> neverRun = ConcurrentHashMap.newKeySet();

		final AtomicLong transactions = new AtomicLong();

		/** Consumers told to stop: a delivery they start still (from a claim under way) is abandoned too. */
		final Set<String> stopped = ConcurrentHashMap.newKeySet();

		volatile boolean letGo;

		private TestClock testClock;

		/** When the test clock last moved on: a claim extension has until its next tick to catch up. */
		volatile long advancedNanos = System.nanoTime() - NOTICE_NANOS;

		World(Limits limits) {
			this.limits = limits;
		}

		void clockOf(TestClock testClock) {
			this.testClock = testClock;
		}

		TaskConsumer consume(DelayedQueue<String> queue, ConsumerOptions options, String name) {
			return queue.consume(delivery -> {
				Run run = new Run(delivery.id(), delivery.payload(), name, TaskClaim.current(), clock.incrementAndGet());
				run.clockStarted = testClock.now().toEpochMilli();
				started(run);
				boolean fail = false;
				try {
					fail = !letGo && run.outcome.get(60, TimeUnit.SECONDS);
				}
				catch (TimeoutException ex) {
					broken.add("the handler of " + run + " was never let go");
				}
				finally {
					ended(run, fail);
				}
				if (fail) {
					throw new IllegalStateException("failed by the test");
				}
			}, options);
		}

		synchronized void scheduled(String id, String payload, long asked, ScheduleResult result) {
			payloads.computeIfAbsent(id, key -> new HashSet<>()).add(keyOf(payload));
			if (result.stored()) {
				owed.put(id, asked);
				lastWrite.put(id, asked);
			}
		}

		synchronized void cancelled(String id) {
			owed.remove(id);
			lastWrite.put(id, clock.incrementAndGet());
		}

		synchronized void rescheduled(String id) {
			lastWrite.put(id, clock.incrementAndGet());
		}

		private void started(Run run) {
			if (stopped.contains(run.consumer)) {
				// The documentation: deliveries still running after a stop's grace stay in flight, unextended,
				// and are delivered again after their visibility timeout.
				run.abandoned = true;
			}
			if (neverRun.contains(run.id)) {
				broken.add("task " + run.id + " ran, though the transaction (or savepoint) that scheduled it rolled back");
			}
			for (Run other : runs) {
				if (other.ended || other.abandoned) {
					continue;
				}
				if (other.id.equals(run.id) && other.payload.equals(run.payload)) {
					// The same schedule delivered twice at once: right only if the older claim lapsed.
					suspects.add(new Suspect("task " + run.id + " (" + run.payload + ") ran twice at once", other, null));
				}
				if (limits.limits.concurrency() > 0 && other.key.equals(run.key) && !other.id.equals(run.id)) {
					suspects.add(new Suspect("more tasks of key " + run.key + " at once than its concurrency (" + other
							+ ", " + run + ")", other, run));
				}
			}
			runs.add(run);
			if (stopped.contains(run.consumer)) {
				// Told to stop while this started: abandon() may have looked at the runs before it.
				run.abandoned = true;
			}
			if (limits.limits.rate() != null) {
				checkRate(run);
			}
		}

		private void checkRate(Run run) {
			long interval = (long) (limits.limits.rate().intervalMicros() / 1000);
			List<Run> ofKey = new ArrayList<>();
			for (Run other : runs) {
				if (other.key.equals(run.key) && other != run) {
					ofKey.add(other);
				}
			}
			// A redelivery of a lapsed claim counts as a start too; two starts of a key are an interval apart.
			for (Run other : ofKey) {
				long apart = Math.abs(run.clockStarted - other.clockStarted);
				if (apart + RATE_SLACK_MILLIS < interval) {
					broken.add("two starts of key " + run.key + " " + apart + " ms apart (" + other + ", " + run
							+ "); its rate allows one every " + interval + " ms");
				}
			}
		}

		private void ended(Run run, boolean failed) {
			run.endedNanos = System.nanoTime();
			run.ended = true;
			synchronized (this) {
				Long since = owed.get(run.id);
				if (!failed && !run.claim.isLost() && since != null && run.started > since) {
					owed.remove(run.id);
				}
			}
		}

		/**
		 * Runs a transaction of new tasks ({@code x<n>}, keyed at random) and, in its nested block, a
		 * cancel of a task; then the model takes what committed: the new tasks it kept are owed a run
		 * from the commit, those rolled back never run, and a cancel rolled back leaves its task owed.
		 */
		void transact(Transaction transaction, DelayedQueue<String> queue, TransactionTemplate outer,
				TransactionTemplate nested) {
			long n = transactions.incrementAndGet();
			// Its tasks cannot start before it commits: a run of one that starts after this is owed.
			long began = clock.incrementAndGet();
			List<String> kept = new ArrayList<>();
			List<String> dropped = new ArrayList<>();
			String cancelled = "t" + transaction.cancelled();
			try {
				outer.executeWithoutResult(status -> {
					for (int i = 0; i < transaction.outer(); i++) {
						kept.add(scheduleIn(queue, "x" + n + "o" + i, i));
					}
					try {
						nested.executeWithoutResult(inner -> {
							for (int i = 0; i < transaction.nested(); i++) {
								(transaction.nestedFails() ? dropped : kept).add(scheduleIn(queue, "x" + n + "n" + i, i));
							}
							if (transaction.nestedFails()) {
								// Only a cancel that is rolled back is certain to leave its task as it was.
								queue.cancel(cancelled);
								throw new IllegalStateException("the nested block fails");
							}
						});
					}
					catch (IllegalStateException ex) {
						// Its savepoint is rolled back; the outer transaction goes on.
					}
					if (!transaction.commits()) {
						status.setRollbackOnly();
					}
				});
			}
			finally {
				synchronized (this) {
					if (transaction.commits()) {
						for (String id : kept) {
							owed.put(id, began);
							lastWrite.put(id, began);
						}
					}
					else {
						dropped.addAll(kept);
					}
					neverRun.addAll(dropped);
				}
			}
		}

		private String scheduleIn(DelayedQueue<String> queue, String id, int key) {
			String payload = "k" + (key % KEYS) + "|" + incarnations.incrementAndGet();
			synchronized (this) {
				payloads.computeIfAbsent(id, k -> new HashSet<>()).add(keyOf(payload));
			}
			ScheduleResult result = queue.schedule(id, payload, Duration.ZERO);
			if (result.status() != ScheduleResult.Status.PENDING_COMMIT) {
				broken.add("a schedule inside a transaction was not deferred to its commit: " + result);
			}
			return id;
		}

		/** Lets the n-th oldest held handler of a running consumer return or throw. */
		void release(int nth, boolean fail) {
			List<Run> held = held();
			held.removeIf(run -> run.abandoned);
			if (!held.isEmpty()) {
				held.get(nth % held.size()).outcome.complete(fail);
			}
		}

		private List<Run> held() {
			List<Run> held = new ArrayList<>();
			for (Run run : runs) {
				if (!run.ended && !run.outcome.isDone()) {
					held.add(run);
				}
			}
			return held;
		}

		void abandon(String consumer) {
			stopped.add(consumer);
			for (Run run : runs) {
				if (run.consumer.equals(consumer) && !run.ended) {
					// Held until the end, as the handlers of a process that stopped answering: their
					// claims lapse and their tasks are delivered again elsewhere.
					run.abandoned = true;
				}
			}
		}

		/** After every step: nothing broken so far, and every deferred key will be looked at again. */
		void check(String at) {
			if (!broken.isEmpty()) {
				throw new AssertionError(at + ": " + broken.get(0));
			}
			checkClaimsKept(at);
			if (limits != Limits.NONE) {
				checkWakeUps(at);
			}
		}

		/**
		 * The claim of a handler still running on a running consumer is kept: its visibility deadline
		 * does not fall behind Redis's clock by more than two timeouts, unless the claim was reported
		 * lost. (Its extension moves it a full timeout on every third of one.)
		 */
		private void checkClaimsKept(String at) {
			if (System.nanoTime() - advancedNanos < NOTICE_NANOS) {
				return;
			}
			Map<String, Run> newest = new HashMap<>();
			synchronized (this) {
				for (Run run : runs) {
					if (!run.ended && !run.abandoned && !run.claim.isLost()
							&& run.started > lastWrite.getOrDefault(run.id, 0L)) {
						Run other = newest.get(run.id);
						if (other == null || other.started < run.started) {
							newest.put(run.id, run);
						}
					}
				}
			}
			if (newest.isEmpty()) {
				return;
			}
			List<String> args = new ArrayList<>(List.of("EVAL", """
					local t = redis.call('time')
					local now = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(redis.call('get', KEYS[2]) or '0')
					local late = {}
					for i = 2, #ARGV do
					    local id = ARGV[i]
					    local deadline = redis.call('zscore', KEYS[1], id)
					    if deadline and tonumber(deadline) < now - 2 * tonumber(ARGV[1]) then
					        table.insert(late, id)
					    end
					end
					return late
					""", "2", "warden:task:{" + QUEUE + "}:inflight", LuaScript.CLOCK_OFFSET_KEY,
					Long.toString(VISIBILITY.toMillis())));
			args.addAll(newest.keySet());
			List<?> late = (List<?>) redis.node().call(args.toArray(String[]::new));
			for (Object id : late) {
				Run run = newest.get(id.toString());
				if (!run.ended && !run.claim.isLost()) {
					throw new AssertionError(at + ": the claim of " + run + ", whose handler still runs, lapsed more than"
							+ " two timeouts ago and was not reported lost: nothing extends it");
				}
			}
		}

		/**
		 * Every key with deferred tasks has a wake-up, a task of it in flight (whose end or admission
		 * looks at the key), or a task of it due (whose admission does).
		 */
		@SuppressWarnings("unchecked")
		private void checkWakeUps(String at) {
			String base = "warden:task:{" + QUEUE + "}:";
			// One script reads the parked entries, the wake-ups, and the ids due or in flight, at one time.
			List<Object> state = (List<Object>) redis.node().call("EVAL", """
					local parked = redis.call('zrange', KEYS[1], 0, -1)
					local live = {}
					for _, member in ipairs(parked) do
					    local key, due, id = string.match(member, '^(.*)%z(%d+)%z(.*)$')
					    local score = redis.call('zscore', KEYS[3], id)
					    if score and tonumber(score) >= 1e15 and math.abs(tonumber(score) - 1e15 - tonumber(due)) < 1 then
					        table.insert(live, key)
					    end
					end
					local flat = {}
					for _, m in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do table.insert(flat, m) end
					local due = {}
					for _, id in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', '(1e15')) do table.insert(due, id) end
					return {live, flat, due, redis.call('zrange', KEYS[4], 0, -1)}
					""", "4", base + "limit-parked", base + "limit-wakes", base + "due", base + "inflight");
			List<Object> live = (List<Object>) state.get(0);
			Set<Object> wakes = new HashSet<>((List<Object>) state.get(1));
			Set<String> lookedAt = new HashSet<>();
			synchronized (this) {
				for (Object id : (List<Object>) state.get(2)) {
					lookedAt.addAll(payloads.getOrDefault(id.toString(), Set.of()));
				}
				for (Object id : (List<Object>) state.get(3)) {
					lookedAt.addAll(payloads.getOrDefault(id.toString(), Set.of()));
				}
			}
			for (Object key : live) {
				if (!wakes.contains(key) && !lookedAt.contains(key.toString())) {
					throw new AssertionError(at + ": key " + key + " has deferred tasks and nothing will look at it"
							+ " again: no wake-up, no task of it due or in flight");
				}
			}
		}

		/**
		 * Once the sequence ends: claims that outlive their timeout have had time to be reported lost;
		 * then every handler lets go, and every task owed a run completes.
		 */
		void drain(RedisServerExtension redis) throws Exception {
			long settle = VISIBILITY.toMillis() * 7 / 2;
			Thread.sleep(settle);
			checkClaimsKept("once the operations ended");
			confirmSuspects();
			letGo();
			Eventually.await("every task owed a run completed: " + owedNow(), Duration.ofSeconds(30), () -> {
				synchronized (this) {
					return owed.isEmpty();
				}
			});
			if (!broken.isEmpty()) {
				throw new AssertionError("while draining: " + broken.get(0));
			}
			String base = "warden:task:{" + QUEUE + "}:";
			Eventually.await("nothing left in flight, deferred or holding a slot", Duration.ofSeconds(10),
					() -> zcard(redis, base + "inflight") == 0 && zcard(redis, base + "limit-parked") == 0
							&& zcard(redis, base + "limit-slots") == 0);
			// Memory stays bounded: a task's meta fields go with it, so each belongs to a task still pending.
			for (Object field : (List<?>) redis.node().call("HKEYS", base + "meta")) {
				String id = field.toString().substring(2);
				if (redis.node().call("ZSCORE", base + "due", id) == null) {
					throw new AssertionError("meta field " + field + " outlived its task");
				}
			}
			for (String key : List.of("limit-wakes", "limit-rates")) {
				long ttl = ((Number) redis.node().call("PTTL", base + key)).longValue();
				if (ttl == -1 && zcard(redis, base + key) > KEYS) {
					throw new AssertionError(base + key + " has no expiry and more entries than keys");
				}
			}
		}

		private synchronized String owedNow() {
			return owed.toString();
		}

		/**
		 * A suspect stands when neither delivery's claim was reported lost, though the older ran on
		 * long enough after the overlap for its claim's extension to notice.
		 */
		private void confirmSuspects() {
			for (Suspect suspect : suspects) {
				if (suspect.stands()) {
					throw new AssertionError(suspect.what() + ", and no claim involved was reported lost");
				}
			}
		}

		void letGo() {
			letGo = true;
			for (Run run : runs) {
				run.outcome.complete(false);
			}
		}

		private static long zcard(RedisServerExtension redis, String key) {
			return ((Number) redis.node().call("ZCARD", key)).longValue();
		}

	}

	/** Two deliveries that ran at once, as they should not unless a claim lapsed. */
	record Suspect(String what, Run older, Run newer, long atNanos) {

		Suspect(String what, Run older, Run newer) {
			this(what, older, newer, System.nanoTime());
		}

		boolean stands() {
			for (Run run : (newer == null) ? List.of(older) : List.of(older, newer)) {
				if (run.abandoned || run.claim.isLost()) {
					return false;
				}
				if (run.ended && run.endedNanos - atNanos < NOTICE_NANOS) {
					// It ended before its extension could have told it: undecided, so not held against it.
					return false;
				}
			}
			return true;
		}

	}

}
