package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DelayedQueueTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static final ConsumerOptions FAST = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
			Duration.ofSeconds(30));

	private Warden client() {
		return clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)));
	}


	@Test
	void taskFiresWhenDueByRedisClockWithItsTypedPayload() throws Exception {
		Warden warden = client();
		DelayedQueue<Order> queue = warden.getDelayedQueue("typed", Order.class);
		BlockingQueue<Delivery<Order>> delivered = new LinkedBlockingQueue<>();
		queue.consume(delivered::add, FAST);

		long redisNow = redisMillis();
		ScheduleResult result = queue.schedule("order-1", new Order(1, List.of("apple")), Duration.ofMillis(300));
		assertThat(result.status()).isEqualTo(ScheduleResult.Status.SCHEDULED);
		assertThat(result.dueAt().toEpochMilli()).isBetween(redisNow + 300, redisNow + 300 + 1_000);

		Delivery<Order> delivery = delivered.poll(10, TimeUnit.SECONDS);
		assertThat(redisMillis()).isGreaterThanOrEqualTo(result.dueAt().toEpochMilli());
		assertThat(delivery).isEqualTo(new Delivery<>("typed", "order-1", new Order(1, List.of("apple")), 1));
		Eventually.await("acknowledged", () -> queue.size() == 0);
	}

	@Test
	void schedulingIsIdempotentByIdUnlessReplaced() {
		DelayedQueue<String> queue = client().getDelayedQueue("idempotent", String.class);
		ScheduleResult first = queue.schedule("t", "one", Duration.ofMinutes(5));
		ScheduleResult again = queue.schedule("t", "two", Duration.ofMinutes(9));
		assertThat(again.status()).isEqualTo(ScheduleResult.Status.ALREADY_PENDING);
		assertThat(again.dueAt()).isEqualTo(first.dueAt());
		assertThat(queue.list(0, 10)).extracting(PendingTask::payload).containsExactly("one");

		ScheduleResult replaced = queue.schedule("t", "three", Duration.ofMinutes(9), ScheduleOption.REPLACE);
		assertThat(replaced.status()).isEqualTo(ScheduleResult.Status.REPLACED);
		assertThat(queue.list(0, 10)).extracting(PendingTask::payload).containsExactly("three");
		assertThat(queue.size()).isEqualTo(1);
	}

	@Test
	void concurrentSchedulesOfTheSameIdsScheduleEachOnce() throws Exception {
		// Eight callers schedule the same 300 ids at once: their calls are sent together, and within
		// one call as across calls, the first schedule of an id wins and the others find it pending.
		DelayedQueue<Integer> queue = client().getDelayedQueue("concurrent", Integer.class);
		Map<ScheduleResult.Status, AtomicInteger> outcomes = new ConcurrentHashMap<>();
		ExecutorService callers = Executors.newFixedThreadPool(8);
		try {
			CountDownLatch go = new CountDownLatch(1);
			List<Future<?>> running = new java.util.ArrayList<>();
			for (int c = 0; c < 8; c++) {
				int caller = c;
				running.add(callers.submit(() -> {
					go.await();
					for (int i = 0; i < 300; i++) {
						ScheduleResult result = queue.schedule("id-" + i, caller, Duration.ofMinutes(10));
						outcomes.computeIfAbsent(result.status(), status -> new AtomicInteger()).incrementAndGet();
						assertThat(result.dueAt()).isNotNull();
					}
					return null;
				}));
			}
			go.countDown();
			for (Future<?> caller : running) {
				caller.get(1, TimeUnit.MINUTES);
			}
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(outcomes.get(ScheduleResult.Status.SCHEDULED)).hasValue(300);
		assertThat(outcomes.get(ScheduleResult.Status.ALREADY_PENDING)).hasValue(7 * 300);
		assertThat(queue.size()).isEqualTo(300);
	}

	@Test
	void queriesCancelAndReschedule() {
		DelayedQueue<Integer> queue = client().getDelayedQueue("queries", Integer.class);
		Instant at = Instant.ofEpochMilli(redisMillis()).plusSeconds(600);
		queue.schedule("b", 2, at.plusSeconds(1));
		queue.schedule("a", 1, at);
		assertThat(queue.contains("a")).isTrue();
		assertThat(queue.dueAt("a")).contains(at);
		assertThat(queue.size()).isEqualTo(2);
		assertThat(queue.list(0, 10)).extracting(PendingTask::id).containsExactly("a", "b");
		assertThat(queue.list(1, 10)).extracting(PendingTask::payload).containsExactly(2);

		assertThat(queue.reschedule("a", at.plusSeconds(5))).isTrue();
		assertThat(queue.list(0, 10)).extracting(PendingTask::id).containsExactly("b", "a");
		assertThat(queue.reschedule("missing", Duration.ZERO)).isFalse();

		assertThat(queue.cancel("a")).isTrue();
		assertThat(queue.cancel("a")).isFalse();
		assertThat(queue.contains("a")).isFalse();
		assertThat(queue.dueAt("a")).isEmpty();
		assertThat(queue.size()).isEqualTo(1);
	}

	@Test
	void cancelledTaskNeverRuns() throws Exception {
		Warden warden = client();
		DelayedQueue<String> queue = warden.getDelayedQueue("cancelled", String.class);
		List<String> ran = new CopyOnWriteArrayList<>();
		CountDownLatch sentinel = new CountDownLatch(1);
		queue.consume(delivery -> {
			ran.add(delivery.id());
			if (delivery.id().equals("sentinel")) {
				sentinel.countDown();
			}
		}, FAST);
		queue.schedule("doomed", "x", Duration.ofMillis(200));
		queue.schedule("sentinel", "x", Duration.ofMillis(500));
		assertThat(queue.cancel("doomed")).isTrue();

		assertThat(sentinel.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(ran).containsExactly("sentinel");
	}

	@Test
	void aDeliveryReplacedWhileItRanCannotCompleteItsReplacement() throws Exception {
		// Two slots: the old delivery and its replacement run at once in the same consumer, both
		// attempt 1. A third task waits for a slot; the slot the old delivery frees runs the claim
		// that carries the old delivery's completion, so by the time that task runs, Redis has
		// answered the completion.
		Warden warden = clients.open(redis.node(),
				options -> options.taskConcurrency(2).shutdownGrace(Duration.ofSeconds(5)));
		DelayedQueue<String> queue = warden.getDelayedQueue("replaced-in-flight", String.class);
		CountDownLatch oldRunning = new CountDownLatch(1);
		CountDownLatch newRunning = new CountDownLatch(1);
		CountDownLatch releaseOld = new CountDownLatch(1);
		CountDownLatch releaseNew = new CountDownLatch(1);
		CountDownLatch afterOld = new CountDownLatch(1);
		List<String> ran = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> {
			ran.add(delivery.id() + "=" + delivery.payload() + "#" + delivery.attempt());
			switch (delivery.payload()) {
				case "old" -> {
					oldRunning.countDown();
					releaseOld.await();
				}
				case "new" -> {
					newRunning.countDown();
					releaseNew.await();
				}
				default -> afterOld.countDown();
			}
		}, FAST);
		queue.schedule("t", "old", Duration.ZERO);
		assertThat(oldRunning.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(queue.schedule("t", "new", Duration.ZERO, ScheduleOption.REPLACE).status())
			.isEqualTo(ScheduleResult.Status.REPLACED);
		assertThat(newRunning.await(10, TimeUnit.SECONDS)).isTrue();
		queue.schedule("after-old", "after", Duration.ZERO);

		releaseOld.countDown();
		assertThat(afterOld.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(queue.contains("t")).as("the replacement is still in flight").isTrue();

		releaseNew.countDown();
		Eventually.await("the replacement acknowledged", () -> queue.size() == 0);
		assertThat(ran).containsExactlyInAnyOrder("t=old#1", "t=new#1", "after-old=after#1");
	}

	@Test
	void anEarlierTaskWakesASleepingConsumerWithoutPolling() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.taskSweepInterval(Duration.ofHours(1))
			.shutdownGrace(Duration.ofSeconds(5)));
		DelayedQueue<String> queue = warden.getDelayedQueue("wake", String.class);
		queue.schedule("late", "x", Duration.ofMinutes(30));
		CountDownLatch delivered = new CountDownLatch(1);
		queue.consume(delivery -> delivered.countDown(), FAST);
		// The consumer now sleeps until the late task; only the schedule's message can wake it.
		long start = System.nanoTime();
		queue.schedule("soon", "x", Duration.ofMillis(100));
		assertThat(delivered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);

		CountDownLatch moved = new CountDownLatch(1);
		DelayedQueue<String> other = warden.getDelayedQueue("wake-reschedule", String.class);
		other.schedule("moved", "x", Duration.ofMinutes(30));
		other.consume(delivery -> moved.countDown(), FAST);
		other.reschedule("moved", Duration.ofMillis(50));
		assertThat(moved.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void failingTaskIsRetriedWithBackoffThenDeadLettered() throws Exception {
		Warden warden = client();
		DelayedQueue<String> queue = warden.getDelayedQueue("failing", String.class);
		List<Long> attemptsAt = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> {
			attemptsAt.add(System.nanoTime());
			throw new IllegalStateException("payment service down (attempt " + delivery.attempt() + ")");
		}, FAST);
		queue.schedule("doomed", "x", Duration.ZERO);

		DeadLetter letter = awaitFirstDeadLetter(queue);
		assertThat(letter.id()).isEqualTo("doomed");
		assertThat(letter.payload()).isEqualTo("\"x\"");
		assertThat(letter.attempts()).isEqualTo(3);
		assertThat(letter.error()).contains("payment service down (attempt 3)");
		assertThat(attemptsAt).hasSize(3);
		assertThat(TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(1) - attemptsAt.get(0))).isGreaterThanOrEqualTo(50);
		assertThat(TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(2) - attemptsAt.get(1))).isGreaterThanOrEqualTo(100);
		assertThat(queue.contains("doomed")).isFalse();
		assertThat(queue.size()).isZero();
	}

	@Test
	void unreadablePayloadGoesToTheDeadLettersAtOnceWithTheReason() throws Exception {
		Warden warden = client();
		warden.getDelayedQueue("unreadable", String.class).schedule("bad", "not a number", Duration.ZERO);
		DelayedQueue<Long> queue = warden.getDelayedQueue("unreadable", Long.class);
		AtomicInteger handled = new AtomicInteger();
		queue.consume(delivery -> handled.incrementAndGet(), FAST);

		DeadLetter letter = awaitFirstDeadLetter(queue);
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(letter.error()).startsWith("Unreadable payload").contains("not a number");
		assertThat(letter.payload()).isEqualTo("\"not a number\"");
		assertThat(handled).hasValue(0);
	}

	@Test
	void deadLetterCanBeRequeued() throws Exception {
		Warden warden = client();
		DelayedQueue<String> queue = warden.getDelayedQueue("requeue", String.class);
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch succeeded = new CountDownLatch(1);
		queue.consume(delivery -> {
			if (calls.incrementAndGet() <= 3) {
				throw new IllegalStateException("not yet");
			}
			succeeded.countDown();
		}, FAST);
		queue.schedule("phoenix", "x", Duration.ZERO);
		Eventually.await("dead letter", () -> !queue.deadLetters().isEmpty());

		assertThat(queue.requeueDeadLetter("phoenix")).isTrue();
		assertThat(succeeded.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(queue.deadLetters()).isEmpty();
		assertThat(queue.requeueDeadLetter("phoenix")).isFalse();
	}

	@Test
	void twoClientsShareTheQueueAndEachTaskRunsOnce() throws Exception {
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		CountDownLatch all = new CountDownLatch(1_000);
		for (int c = 0; c < 2; c++) {
			client().getDelayedQueue("shared", Integer.class).consume(delivery -> {
				runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
				all.countDown();
			}, FAST);
		}
		DelayedQueue<Integer> producer = client().getDelayedQueue("shared", Integer.class);
		for (int i = 0; i < 1_000; i++) {
			producer.schedule("task-" + i, i, Duration.ofMillis(i * 2L));
		}
		assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
		Eventually.await("all acknowledged", () -> producer.size() == 0);
		assertThat(runs).hasSize(1_000);
		assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
	}

	@Test
	void aBacklogDueAtOnceRunsEachTaskOnceAndLeavesNoStateBehind() throws Exception {
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		DelayedQueue<Integer> producer = client().getDelayedQueue("backlog", Integer.class);
		for (int i = 0; i < 2_000; i++) {
			producer.schedule("task-" + i, i, Duration.ZERO);
		}
		CountDownLatch all = new CountDownLatch(2_000);
		client().getDelayedQueue("backlog", Integer.class).consume(delivery -> {
			runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			all.countDown();
		}, FAST);
		assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
		Eventually.await("all acknowledged", () -> producer.size() == 0);
		assertThat(runs).hasSize(2_000);
		assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
		assertThat(redis.node().call("KEYS", "*{backlog}*")).asList().isEmpty();
	}

	@Test
	void handlersRunOnTheClientsDaemonThreadsAsManyAtOnceAsItsConcurrency() throws Exception {
		// Four slots, ten tasks due at once: four handlers hold their threads until released, and
		// the tasks after them start only as slots free up. They wait on a future, as a handler calling
		// a client's blocking API does: the pool adds no thread for a blocked one.
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "four-slots", 10, 4);
		CountDownLatch fourRunning = new CountDownLatch(4);
		CompletableFuture<Void> release = new CompletableFuture<>();
		CountDownLatch all = new CountDownLatch(10);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		Map<String, Boolean> threads = new ConcurrentHashMap<>();
		queue.consume(delivery -> {
			mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
			threads.put(Thread.currentThread().getName(), Thread.currentThread().isDaemon());
			fourRunning.countDown();
			try {
				release.get();
			}
			finally {
				running.decrementAndGet();
				all.countDown();
			}
		}, FAST);
		assertThat(fourRunning.await(10, TimeUnit.SECONDS)).isTrue();
		release.complete(null);
		assertThat(all.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(mostAtOnce).hasValue(4);
		assertThat(threads).hasSize(4).allSatisfy((name, daemon) -> {
			assertThat(name).startsWith("warden-task-");
			assertThat(daemon).isTrue();
		});
		String pool = threads.keySet().iterator().next().replaceAll("\\d+$", "");
		assertThat(Thread.getAllStackTraces().keySet()).filteredOn(thread -> thread.getName().startsWith(pool))
			.as("the client's handler threads, after four blocked at once")
			.hasSizeLessThanOrEqualTo(4);
		Eventually.await("all acknowledged", () -> queue.size() == 0);
	}

	@Test
	void anInstanceWhoseHandlersAreSlowClaimsNoMoreThanItCanRunAndAnotherTakesTheRest() throws Exception {
		// Two slots held by handlers that wait: the busy instance claims nothing beyond them, so the
		// eight other tasks due go to a second instance while those two still run.
		DelayedQueue<Integer> busy = DueTasks.dueNow(clients, redis.node(), "slow-handlers", 10, 2);
		CountDownLatch twoRunning = new CountDownLatch(2);
		CompletableFuture<Void> release = new CompletableFuture<>();
		Map<String, String> ranOn = new ConcurrentHashMap<>();
		busy.consume(delivery -> {
			ranOn.put(delivery.id(), "busy");
			twoRunning.countDown();
			release.get(30, TimeUnit.SECONDS);
		}, FAST);
		assertThat(twoRunning.await(10, TimeUnit.SECONDS)).isTrue();
		CountDownLatch eight = new CountDownLatch(8);
		clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)))
			.getDelayedQueue("slow-handlers", Integer.class)
			.consume(delivery -> {
				ranOn.put(delivery.id(), "other");
				eight.countDown();
			}, FAST);
		try {
			assertThat(eight.await(10, TimeUnit.SECONDS)).as("the other instance ran the eight left").isTrue();
		}
		finally {
			release.complete(null);
		}
		Eventually.await("all acknowledged", () -> busy.size() == 0);
		assertThat(ranOn).hasSize(10);
		assertThat(ranOn.values()).filteredOn("busy"::equals).hasSize(2);
	}

	@Test
	void aConsumerWithOneHandlerSlotAcknowledgesEveryTaskAndStopsIdle() throws Exception {
		// One slot: every handler finishes while the next claim waits for that slot, so each
		// acknowledgement waits for the claim the slot's release runs.
		DelayedQueue<Integer> queue = DueTasks.dueNow(clients, redis.node(), "one-slot", 300, 1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		CountDownLatch all = new CountDownLatch(300);
		TaskConsumer consumer = queue.consume(delivery -> {
			runs.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
			all.countDown();
		}, FAST);
		assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
		assertThat(consumer.stop(Duration.ofSeconds(10))).isTrue();
		assertThat(runs).hasSize(300);
		assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
		Eventually.await("all acknowledged", () -> queue.size() == 0);
		assertThat(redis.node().call("KEYS", "*{one-slot}*")).asList().isEmpty();
	}

	@Test
	void tasksOfStoppedClientsFireForANewClient() throws Exception {
		Warden first = client();
		DelayedQueue<String> queue = first.getDelayedQueue("restart", String.class);
		for (int i = 0; i < 20; i++) {
			queue.schedule("t" + i, "x", Duration.ofMillis(100));
		}
		long due = queue.dueAt("t0").orElseThrow().toEpochMilli();
		clients.close(first);
		Eventually.await("the tasks due while no client runs", () -> redisMillis() > due + 100);

		CountDownLatch fired = new CountDownLatch(20);
		client().getDelayedQueue("restart", String.class).consume(delivery -> fired.countDown(), FAST);
		assertThat(fired.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void taskOfAConsumerThatDiedIsDeliveredAgainAfterTheVisibilityTimeout() throws Exception {
		ConsumerOptions shortVisibility = FAST.withVisibilityTimeout(Duration.ofMillis(500));
		CountDownLatch hanging = claimThenDie("crash", "survivor", shortVisibility);

		BlockingQueue<Delivery<String>> redelivered = new LinkedBlockingQueue<>();
		Warden rescuer = client();
		rescuer.getDelayedQueue("crash", String.class).consume(redelivered::add, shortVisibility);
		Delivery<String> delivery = redelivered.poll(10, TimeUnit.SECONDS);
		assertThat(delivery).isNotNull();
		assertThat(delivery.id()).isEqualTo("survivor");
		assertThat(delivery.attempt()).isEqualTo(2);
		Eventually.await("acknowledged", () -> rescuer.getDelayedQueue("crash").size() == 0);
		hanging.countDown();
	}

	@Test
	void taskWhoseConsumersKeepDyingGoesToTheDeadLettersOnceItsDeliveriesRunOut() throws Exception {
		ConsumerOptions oneDelivery = FAST.withMaxAttempts(1).withVisibilityTimeout(Duration.ofMillis(300));
		CountDownLatch hanging = claimThenDie("doomed-crash", "orphan", oneDelivery);

		AtomicInteger handled = new AtomicInteger();
		DelayedQueue<String> queue = client().getDelayedQueue("doomed-crash", String.class);
		queue.consume(delivery -> handled.incrementAndGet(), oneDelivery);
		DeadLetter letter = awaitFirstDeadLetter(queue);
		assertThat(letter.id()).isEqualTo("orphan");
		assertThat(letter.payload()).isEqualTo("\"x\"");
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(letter.error()).isEqualTo("gave up after 1 deliveries; last: no acknowledgement");
		assertThat(handled).hasValue(0);
		assertThat(queue.size()).isZero();
		// Nothing of the task is left but its dead letter, and its place in the failure-time index.
		assertThat(redis.node().call("KEYS", "*{doomed-crash}*")).asList()
			.containsExactlyInAnyOrder("warden:task:{doomed-crash}:dead", "warden:task:{doomed-crash}:dead-at");
		hanging.countDown();
	}

	/** Waits for the queue's first dead letter. */
	private static DeadLetter awaitFirstDeadLetter(DelayedQueue<?> queue) throws InterruptedException {
		Eventually.await("dead letter", () -> !queue.deadLetters().isEmpty());
		return queue.deadLetters().get(0);
	}

	/**
	 * Schedules task {@code taskId} on a client whose consumer claims it and then hangs like a
	 * process that died mid-task (no acknowledgement and no failure report), and closes that client.
	 * @return the latch that ends the hanging handler, for the end of the test
	 */
	private CountDownLatch claimThenDie(String queue, String taskId, ConsumerOptions options) throws Exception {
		Warden dying = clients.open(redis.node(), builder -> builder.shutdownGrace(Duration.ZERO));
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch hanging = new CountDownLatch(1);
		dying.getDelayedQueue(queue, String.class).consume(delivery -> {
			started.countDown();
			while (hanging.getCount() > 0) {
				try {
					hanging.await();
				}
				catch (InterruptedException ignored) {
					// Keep hanging; the client that ran this is closed.
				}
			}
		}, options);
		dying.getDelayedQueue(queue, String.class).schedule(taskId, "x", Duration.ZERO);
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		clients.close(dying);
		return hanging;
	}

	@Test
	void stoppingWaitsForRunningHandlers() throws Exception {
		Warden warden = client();
		DelayedQueue<String> queue = warden.getDelayedQueue("graceful", String.class);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		queue.consume(delivery -> {
			started.countDown();
			release.await();
		}, FAST);
		queue.schedule("slow", "x", Duration.ZERO);
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

		Thread releaser = new Thread(() -> {
			Eventually.awaitQuietly(() -> warden.consumedQueues().isEmpty());
			release.countDown();
		});
		releaser.start();
		assertThat(warden.stopConsumers()).isTrue();
		assertThat(queue.size()).isZero();
		queue.schedule("after-stop", "x", Duration.ZERO);
		assertThat(queue.size()).isEqualTo(1);
	}

	@Test
	void badArgumentsFailFast() {
		Warden warden = client();
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getDelayedQueue("a{b}"));
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getDelayedQueue(" "));
		DelayedQueue<String> queue = warden.getDelayedQueue("args", String.class);
		assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule(" ", "x", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("t", "x", Duration.ofSeconds(-1)));
		assertThatIllegalArgumentException().isThrownBy(() -> new ConsumerOptions(0, Duration.ofSeconds(1),
				Duration.ofSeconds(1), Duration.ofSeconds(1)));
		Warden.Builder builder = Warden.builder(clients.redisClient(redis.node()));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.taskClaimAhead(Duration.ofMillis(-1)));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.taskClaimAhead(Duration.ofMillis(1001)));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.taskClaimAhead(null));
		assertThat(queue.size()).isZero();
	}

	private static long redisMillis() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

	record Order(long id, List<String> skus) {
	}

}
