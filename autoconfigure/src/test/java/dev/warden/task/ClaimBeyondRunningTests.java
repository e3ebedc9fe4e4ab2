package dev.warden.task;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a consumer claims beyond the handlers that can run: the tasks claimed for the slots short
 * handlers free during a round trip, and what becomes of them when handlers turn slow or their
 * consumer stops.
 */
class ClaimBeyondRunningTests {

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	private static final ConsumerOptions OPTIONS = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
			VISIBILITY);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void atMostOneClaimsWorthWaitsBehindHandlersThatTurnSlow() throws Exception {
		// Four slots and short handlers for the first 300 tasks: claims take tasks beyond the slots.
		// Then every handler runs 300 ms: the tasks claimed before that may wait behind them, one
		// claim's worth at most (three times the concurrency), and nothing claimed after waits.
		// Each slow handler reads how long its task waited since its claim, by Redis's clock: its
		// visibility deadline is its claim's time plus the visibility timeout.
		int concurrency = 4;
		int fast = 300;
		int slow = 80;
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "turn-slow", fast + slow, concurrency);
		AtomicInteger started = new AtomicInteger();
		List<Long> waitedMillis = new CopyOnWriteArrayList<>();
		CountDownLatch all = new CountDownLatch(fast + slow);
		queue.consume(delivery -> {
			if (started.incrementAndGet() > fast) {
				waitedMillis.add(waitedSinceClaim("turn-slow", delivery.id()));
				// Not a wait for another thread: the handler's own work, much longer than a round trip.
				Thread.sleep(300);
			}
			all.countDown();
		}, OPTIONS);
		assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
		Eventually.await("all acknowledged", () -> queue.size() == 0);
		List<Long> waitedBehindSlow = waitedMillis.stream().filter(waited -> waited >= 150).toList();
		assertThat(waitedBehindSlow).as("tasks that waited 150 ms or more behind slow handlers, of %s", waitedMillis)
			.hasSizeLessThanOrEqualTo(3 * concurrency);
	}

	@Test
	void tasksWaitingWhenTheirConsumerStopsDoNotRunOnceAnotherInstanceRanThem() throws Exception {
		// One slot and short handlers: claims take tasks beyond the slot. A handler with tasks claimed
		// behind it then waits, and its consumer stops with a short grace: stop
		// returns false, and the waiting tasks, their claims no longer kept alive, are delivered again
		// to a second instance (handed back at the stop). Once the handler ends, the stopped consumer
		// must not run them a second time.
		ConsumerOptions shortVisibility = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
				Duration.ofMillis(600));
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "stopped-waiting", 2_000, 1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		CountDownLatch all = new CountDownLatch(2_000);
		CompletableFuture<Void> release = new CompletableFuture<>();
		Hang hang = new Hang();
		AtomicReference<String> slowId = new AtomicReference<>();
		List<String> ranTwice = new CopyOnWriteArrayList<>();
		CountDownLatch anyRanTwice = new CountDownLatch(1);
		TaskHandler<Integer> counted = delivery -> {
			int count = runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			if (count == 1) {
				all.countDown();
			}
			else if (!delivery.id().equals(slowId.get())) {
				ranTwice.add(delivery.id());
				anyRanTwice.countDown();
			}
		};
		AtomicBoolean stopped = new AtomicBoolean();
		List<String> ranAfterStop = new CopyOnWriteArrayList<>();
		TaskConsumer stopping = queue.consume(delivery -> {
			if (stopped.get()) {
				ranAfterStop.add(delivery.id());
			}
			boolean slow = hang.hangs(delivery.id());
			if (slow) {
				slowId.set(delivery.id());
			}
			counted.handle(delivery);
			if (slow) {
				release.get(30, TimeUnit.SECONDS);
			}
		}, shortVisibility);
		hang.armOnceTasksWait("stopped-waiting", runs);
		List<String> behind = hang.awaitHungWithTasksBehind("stopped-waiting", runs);
		List<String> redelivered = new CopyOnWriteArrayList<>();
		try {
			stopped.set(true);
			assertThat(stopping.stop(Duration.ofMillis(200))).as("a handler still runs").isFalse();
			clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)))
				.getDelayedQueue("stopped-waiting", Integer.class)
				.consume(delivery -> {
					if (behind.contains(delivery.id())) {
						redelivered.add(delivery.id());
					}
					counted.handle(delivery);
				}, shortVisibility);
			assertThat(all.await(60, TimeUnit.SECONDS)).as("every task ran").isTrue();
			assertThat(redelivered).as("tasks that waited behind the slow handler, delivered again").isNotEmpty();
		}
		finally {
			release.complete(null);
		}
		// The stopped consumer's single handler thread runs whatever still waits right after the slow
		// handler: a bounded look for a second run.
		boolean twice = anyRanTwice.await(3, TimeUnit.SECONDS);
		assertThat(twice).as("tasks that ran twice: %s (delivered again: %s; run by the stopped consumer after its "
				+ "stop: %s)", ranTwice, redelivered, ranAfterStop).isFalse();
	}

	@Test
	void aConsumerWhoseHandlersAreSlowClaimsNothingBeyondThemWhileAnotherQueueDrains() throws Exception {
		// Two slots shared by two queues: a backlog of short tasks drains on one while the other's
		// handlers take 300 ms each. The slow queue's handlers free no slot during a round trip, so
		// its consumer must claim nothing beyond what can start: none of its tasks waits for a handler
		// thread. Each reads how long it waited since its claim, by Redis's clock.
		int fast = 24_000;
		int slow = 12;
		Warden warden = clients.open(redis.node(),
				options -> options.taskConcurrency(2).shutdownGrace(Duration.ofSeconds(5)));
		DelayedQueue<Integer> fastQueue = warden.getDelayedQueue("mixed-fast", Integer.class);
		ExecutorService schedulers = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> scheduled = new java.util.ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int first = t * (fast / 8);
				scheduled.add(schedulers.submit(() -> {
					for (int i = first; i < first + fast / 8; i++) {
						fastQueue.schedule("fast-" + i, i, Duration.ZERO);
					}
				}));
			}
			for (Future<?> done : scheduled) {
				done.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			schedulers.shutdownNow();
		}
		DelayedQueue<Integer> slowQueue = warden.getDelayedQueue("mixed-slow", Integer.class);
		CountDownLatch fastMidway = new CountDownLatch(fast / 4);
		CountDownLatch fastDone = new CountDownLatch(fast);
		fastQueue.consume(delivery -> {
			fastMidway.countDown();
			fastDone.countDown();
		}, OPTIONS);
		List<Long> waitedMillis = new CopyOnWriteArrayList<>();
		CountDownLatch slowDone = new CountDownLatch(slow);
		slowQueue.consume(delivery -> {
			waitedMillis.add(waitedSinceClaim("mixed-slow", delivery.id()));
			// Not a wait for another thread: the handler's own work, much longer than a round trip.
			Thread.sleep(300);
			slowDone.countDown();
		}, OPTIONS);
		assertThat(fastMidway.await(60, TimeUnit.SECONDS)).isTrue();
		for (int i = 0; i < slow; i++) {
			slowQueue.schedule("slow-" + i, i, Duration.ZERO);
		}
		assertThat(slowDone.await(60, TimeUnit.SECONDS)).isTrue();
		assertThat(fastDone.await(60, TimeUnit.SECONDS)).isTrue();
		assertThat(waitedMillis.stream().filter(waited -> waited >= 150).toList())
			.as("slow tasks that waited 150 ms or more for a handler thread, of %s", waitedMillis)
			.isEmpty();
	}

	@Test
	void tasksClaimedBehindAHandlerThatHangsGoToAnotherInstanceAndRunOnce() throws Exception {
		// One slot and short handlers: claims take tasks beyond the slot, for it to run in turn. A
		// handler with tasks claimed behind it then hangs until every task has run.
		// The tasks behind it keep their claims for a visibility timeout (a second instance, started
		// then, does not get them meanwhile), are then given up, and run on the second instance once
		// their claims lapse; none runs twice.
		ConsumerOptions shortVisibility = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
				Duration.ofMillis(600));
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "hangs", 2_000, 1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		CountDownLatch all = new CountDownLatch(2_000);
		Hang hang = new Hang();
		queue.consume(delivery -> {
			if (runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet() == 1) {
				all.countDown();
			}
			if (hang.hangs(delivery.id())) {
				all.await(30, TimeUnit.SECONDS);
			}
		}, shortVisibility);
		hang.armOnceTasksWait("hangs", runs);
		List<String> behind = hang.awaitHungWithTasksBehind("hangs", runs);
		Map<String, AtomicInteger> ranElsewhere = new ConcurrentHashMap<>();
		clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)))
			.getDelayedQueue("hangs", Integer.class)
			.consume(delivery -> {
				ranElsewhere.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
				if (runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet() == 1) {
					all.countDown();
				}
			}, shortVisibility);
		assertThat(all.await(20, TimeUnit.SECONDS)).as("every task ran while one handler hangs").isTrue();
		Eventually.await("all acknowledged", () -> queue.size() == 0);
		assertThat(runs).hasSize(2_000);
		assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
		assertThat(ranElsewhere).as("the tasks that waited behind the hung handler").containsKeys(behind.toArray(String[]::new));
	}

	@Test
	void aTaskGivenUpBehindAHandlerThatHangsDoesNotSpendAnAttemptItNeverStarted() throws Exception {
		// One attempt per task, one slot, short handlers: claims take tasks beyond the slot. A handler
		// with tasks claimed behind it then works until their claims, given up after a visibility
		// timeout, have lapsed in Redis. Their handlers never started: each must still run
		// once, at its first attempt, not become a dead letter for a delivery that never began.
		ConsumerOptions oneAttempt = new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1),
				Duration.ofMillis(600));
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "given-up-attempt", 2_000, 1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		Hang hang = new Hang();
		CountDownLatch lapsed = new CountDownLatch(1);
		queue.consume(delivery -> {
			runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			if (hang.hangs(delivery.id())) {
				lapsed.await(60, TimeUnit.SECONDS);
			}
		}, oneAttempt);
		hang.armOnceTasksWait("given-up-attempt", runs);
		List<String> behind = hang.awaitHungWithTasksBehind("given-up-attempt", runs);
		// The handler works until the claims of the tasks behind it lapsed (or went back).
		Eventually.await("claims of the tasks behind lapsed", Duration.ofSeconds(30),
				() -> claimsLapsed("given-up-attempt", behind));
		lapsed.countDown();
		Eventually.await("every task ran or is a dead letter", Duration.ofSeconds(30),
				() -> queue.size() == 0 && ranOrDead(queue, runs).size() >= 2_000);
		assertThat(deadLetterIds(queue)).as("dead letters that never ran (tasks given up behind the handler: %s)", behind)
			.isEmpty();
		assertThat(runs).hasSize(2_000);
	}

	@Test
	void tasksWaitingWhenTheirConsumerStopsAreDeliveredAgainAtTheAttemptTheyNeverStarted() throws Exception {
		// One attempt per task, one slot, short handlers: claims take tasks beyond the slot. A handler
		// with tasks claimed behind it then waits, and its consumer stops with a short
		// grace: the tasks behind it do not run there and, once their claims lapse, a second instance
		// takes them. Their handlers never started: each must run there, not become a dead letter.
		ConsumerOptions oneAttempt = new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1),
				Duration.ofMillis(600));
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "stopped-attempt", 2_000, 1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		Hang hang = new Hang();
		CompletableFuture<Void> release = new CompletableFuture<>();
		TaskConsumer stopping = queue.consume(delivery -> {
			runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			if (hang.hangs(delivery.id())) {
				release.get(30, TimeUnit.SECONDS);
			}
		}, oneAttempt);
		hang.armOnceTasksWait("stopped-attempt", runs);
		List<String> behind = hang.awaitHungWithTasksBehind("stopped-attempt", runs);
		try {
			assertThat(stopping.stop(Duration.ofMillis(200))).as("a handler still runs").isFalse();
			DelayedQueue<Integer> elsewhere = clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)))
				.getDelayedQueue("stopped-attempt", Integer.class);
			elsewhere.consume(delivery -> runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet(),
					oneAttempt);
			Eventually.await("every task ran or is a dead letter", Duration.ofSeconds(30),
					() -> queue.size() == 0 && ranOrDead(queue, runs).size() >= 2_000);
		}
		finally {
			release.complete(null);
		}
		// The handler that waited ran its one attempt: it may be a dead letter; none that never ran may.
		assertThat(deadLetterIds(queue).stream().filter(id -> !runs.containsKey(id)).toList())
			.as("dead letters that never ran (tasks that waited behind the handler at the stop: %s)", behind)
			.isEmpty();
		assertThat(runs).hasSize(2_000);
	}

	private static List<String> deadLetterIds(DelayedQueue<?> queue) {
		return queue.deadLetters(0, 1000).stream().map(DeadLetter::id).toList();
	}

	private static java.util.Set<String> ranOrDead(DelayedQueue<?> queue, Map<String, AtomicInteger> runs) {
		java.util.Set<String> ids = new java.util.HashSet<>(runs.keySet());
		ids.addAll(deadLetterIds(queue));
		return ids;
	}

	/** Whether every one of these in-flight tasks' visibility deadlines has passed, by Redis's clock. */
	private static boolean claimsLapsed(String queue, List<String> ids) {
		long now = redisMillis();
		for (String id : ids) {
			Object deadline = redis.node().call("ZSCORE", "warden:task:{" + queue + "}:inflight", id);
			if (deadline != null && (long) Double.parseDouble(String.valueOf(deadline)) >= now) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Makes one handler of a one-slot consumer hang once tasks are claimed behind the slot. A thread
	 * of the test watches the queue in Redis, so the handlers themselves stay short (as they must be
	 * for tasks to be claimed beyond the slot): once two tasks or more wait, the next handler to start
	 * is the one that hangs, and at least one waits behind it.
	 */
	private static final class Hang {

		private final AtomicBoolean armed = new AtomicBoolean();

		private final AtomicReference<String> hungId = new AtomicReference<>();

		private final CountDownLatch hung = new CountDownLatch(1);

		/** Watches the queue, after its first 50 runs, until two tasks or more wait for the slot. */
		void armOnceTasksWait(String queue, Map<String, AtomicInteger> runs) {
			Thread watcher = new Thread(() -> {
				try {
					if (Eventually.holdsWithin(Duration.ofSeconds(30),
							() -> runs.size() > 50 && waitingBehind(queue, "", runs).size() >= 2)) {
						armed.set(true);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "hang-watcher");
			watcher.setDaemon(true);
			watcher.start();
		}

		/** Called by each handler as it starts: whether it is the one to hang. */
		boolean hangs(String id) {
			if (!armed.compareAndSet(true, false)) {
				return false;
			}
			hungId.set(id);
			hung.countDown();
			return true;
		}

		/** Waits until a handler hangs; returns the tasks claimed behind it. */
		List<String> awaitHungWithTasksBehind(String queue, Map<String, AtomicInteger> runs) throws InterruptedException {
			assertThat(hung.await(30, TimeUnit.SECONDS)).as("tasks were claimed beyond the slot").isTrue();
			List<String> behind = waitingBehind(queue, hungId.get(), runs);
			assertThat(behind).as("tasks claimed behind the handler that hangs").isNotEmpty();
			return behind;
		}

		String hungId() {
			return hungId.get();
		}

	}

	/**
	 * The tasks of a one-slot consumer's queue claimed behind the one whose handler runs: in flight,
	 * other than it, and not run yet.
	 */
	private static List<String> waitingBehind(String queue, String running, Map<String, AtomicInteger> runs) {
		List<?> inFlight = (List<?>) redis.node().call("ZRANGE", "warden:task:{" + queue + "}:inflight", "0", "-1");
		return inFlight.stream().map(String::valueOf).filter(id -> !id.equals(running) && !runs.containsKey(id)).toList();
	}


	/**
	 * How long a running task waited since its claim, by Redis's clock: its visibility deadline is its
	 * claim's time plus the visibility timeout.
	 */
	private static long waitedSinceClaim(String queue, String id) {
		Object deadline = redis.node().call("ZSCORE", "warden:task:{" + queue + "}:inflight", id);
		return redisMillis() - ((long) Double.parseDouble(String.valueOf(deadline)) - VISIBILITY.toMillis());
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
