package dev.warden.task;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.InvalidAnnotationException;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.test.redis.RedisServerExtension;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RecurringTask} on real Redis, with one or two application instances (each its own
 * context and Redis client): each occurrence runs once across them, the schedule survives every
 * instance stopping, missed occurrences follow the misfire policy, and changed or removed jobs are
 * planned anew or removed.
 */
class RecurringTaskTests {

	/**
	 * Tags the tests of the schedule's timing across instances (missed, overlapping, retried and
	 * redeployed occurrences): seconds of waiting on the engine's scripts and timers, with no Spring
	 * in between, so the Boot 3 module, which runs the rest of this class, leaves them out.
	 */
	static final String SCHEDULING_TIMING = "scheduling-timing";

	private static final String QUEUE = "recurring-jobs-test";

	private static final String PLANS = "warden:task:{" + QUEUE + "}:recurring";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** Every run, across instances: which instance ran it, and the job's planned next due time then. */
	static final List<String> runs = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.recurring.queue=" + QUEUE, "warden.recurring.misfire-threshold=500ms");

	@BeforeEach
	void clear() {
		runs.clear();
		redis.node().call("FLUSHALL");
	}

	@Test
	void eachOccurrenceRunsOnceAcrossTwoInstancesAtTheRate() {
		// Each instance's run observations name the occurrence it ran: pulse@<due, epoch ms>.
		List<String> started = new CopyOnWriteArrayList<>();
		ApplicationContextRunner pulse = runner.withUserConfiguration(Pulse.class)
			.withPropertyValues("job.rate=200ms");
		pulse.withPropertyValues("instance=a")
			.withBean(ObservationRegistry.class, () -> recordingRuns(started))
			.run(a -> pulse.withPropertyValues("instance=b")
				.withBean(ObservationRegistry.class, () -> recordingRuns(started))
				.run(b -> {
					assertThat(a).hasNotFailed();
					assertThat(b).hasNotFailed();
					Eventually.await("ten runs", () -> started.size() >= 10);
				}));

		List<String> occurrences = List.copyOf(started);
		assertThat(occurrences).as("no occurrence ran twice, on either instance").doesNotHaveDuplicates();
		List<Long> dues = occurrences.stream().map(id -> Long.parseLong(id.substring(id.indexOf('@') + 1))).sorted().toList();
		for (int i = 1; i < dues.size(); i++) {
			// An occurrence that starts a whole period late (a loaded machine) lets the plan move past
			// the occurrences it missed, so the step is a multiple of the rate, never off its grid.
			long step = dues.get(i) - dues.get(i - 1);
			assertThat(step % 200).as("the rate, by Redis's clock: step " + step).isZero();
			assertThat(step).isPositive();
		}
		// Which instance runs an occurrence is whichever claims it first; nothing promises both do.
	}

	/** A registry whose handler records the task id of each first attempt of a task run. */
	private static ObservationRegistry recordingRuns(List<String> started) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

			@Override
			public void onStart(Observation.Context context) {
				KeyValue id = context.getHighCardinalityKeyValue("task.id");
				KeyValue attempt = context.getHighCardinalityKeyValue("attempt");
				if ("warden.task.run".equals(context.getName()) && id != null && attempt != null
						&& attempt.getValue().equals("1")) {
					started.add(id.getValue());
				}
			}

		});
		return registry;
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void aFixedRateRunSlowerThanItsRateNeverOverlapsItselfAcrossInstances() {
		// Runs every 200 ms; the first run is held open for three periods and more (by Redis's clock),
		// then every run is fast. Both instances consume the job's queue.
		List<String> started = new CopyOnWriteArrayList<>();
		SlowPulseJob.reset();
		ApplicationContextRunner slow = runner.withUserConfiguration(SlowPulse.class);
		long[] released = new long[1];
		slow.withBean(ObservationRegistry.class, () -> recordingRuns(started))
			.run(a -> slow.withBean(ObservationRegistry.class, () -> recordingRuns(started)).run(b -> {
				assertThat(a).hasNotFailed();
				assertThat(b).hasNotFailed();
				try {
					Eventually.await("the first run", () -> SlowPulseJob.starts.get() >= 1);
					awaitRedisPast(redisMillis() + 700);
					assertThat(SlowPulseJob.starts).as("no run started beside the one under way").hasValue(1);
				}
				finally {
					released[0] = redisMillis();
					SlowPulseJob.gate.countDown();
				}
				Eventually.await("eight runs", Duration.ofSeconds(30), () -> SlowPulseJob.starts.get() >= 8);
			}));

		assertThat(SlowPulseJob.mostAtOnce).as("runs of the job under way at once, across both instances").hasValue(1);
		List<Long> dues = List.copyOf(started)
			.stream()
			.map(id -> Long.parseLong(id.substring(id.indexOf('@') + 1)))
			.sorted()
			.toList();
		assertThat(dues).as("no occurrence ran twice").doesNotHaveDuplicates();
		for (int i = 1; i < dues.size(); i++) {
			assertThat((dues.get(i) - dues.get(i - 1)) % 200).as("on the rate's grid: " + dues).isZero();
		}
		// The run after the slow one is the last slot it missed, due at once: the slots before it are
		// not made up.
		assertThat(dues.get(1)).as("the occurrence after the slow run, in " + dues).isGreaterThan(released[0] - 200);
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void anOccurrenceMissedWhileNoInstanceWasUpRunsOnceThenTheScheduleGoesOn() throws Exception {
		ApplicationContextRunner hourly = runner.withUserConfiguration(Pulse.class)
			.withPropertyValues("job.rate=1h", "job.initial-delay=1s", "instance=a");
		long[] due = new long[1];
		hourly.run(context -> due[0] = plannedDue("pulse"));
		awaitRedisPast(due[0] + 1_000);

		hourly.withPropertyValues("instance=b").run(context -> {
			Eventually.await("the missed run", () -> runs.size() == 1);
			Eventually.await("the next one planned once it ended", () -> plannedDue("pulse") != due[0]);
		});

		assertThat(runs).as("while it ran, the plan pointed to it").containsExactly("b " + due[0]);
		assertThat(plannedDue("pulse")).as("the next one, an hour after the missed one").isEqualTo(due[0] + 3_600_000);
		assertThat(redis.node().call("ZCARD", "warden:task:{" + QUEUE + "}:due")).isEqualTo(1L);
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void anOccurrenceMissedUnderTheSkipPolicyDoesNotRun() throws Exception {
		ApplicationContextRunner hourly = runner.withUserConfiguration(SkippingPulse.class)
			.withPropertyValues("job.rate=1h", "job.initial-delay=1s", "instance=a");
		long[] due = new long[1];
		hourly.run(context -> due[0] = plannedDue("skipping"));
		awaitRedisPast(due[0] + 1_000);

		hourly.withPropertyValues("instance=b")
			.run(context -> Eventually.await("the next occurrence planned",
					() -> plannedDue("skipping") == due[0] + 3_600_000));

		assertThat(runs).isEmpty();
	}

	@Test
	void anOccurrenceThatStartsOnTimeRunsEvenUnderTheSkipPolicy() {
		runner.withUserConfiguration(SkippingPulse.class)
			.withPropertyValues("job.rate=1h", "job.initial-delay=200ms", "instance=a")
			.run(context -> Eventually.await("the run", () -> runs.size() == 1));
	}

	@Test
	void changingTheScheduleAndRestartingPlansTheJobAnew() {
		runner.withUserConfiguration(Pulse.class).withPropertyValues("job.rate=1h", "job.initial-delay=1h").run(context -> {
		});
		long oldDue = plannedDue("pulse");
		assertThat(occurrencePending("pulse@" + oldDue)).isTrue();

		runner.withUserConfiguration(Pulse.class).withPropertyValues("job.rate=2h", "job.initial-delay=2h").run(context -> {
		});

		assertThat(plan("pulse")).endsWith(" rate 7200000ms");
		assertThat(occurrencePending("pulse@" + oldDue)).as("the old plan's occurrence is cancelled").isFalse();
		assertThat(occurrencePending("pulse@" + plannedDue("pulse"))).isTrue();
		assertThat(redis.node().call("ZCARD", "warden:task:{" + QUEUE + "}:due")).isEqualTo(1L);
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void instancesWithTwoSchedulesSideBySideRunEveryOccurrenceAndKeepTheLaterPlan() throws Exception {
		// A rolling deployment that changes the rate: the old version, then the new one beside it.
		List<String> delivered = new CopyOnWriteArrayList<>();
		AtomicBoolean flippedBack = new AtomicBoolean();
		ApplicationContextRunner pulse = runner.withUserConfiguration(Pulse.class);
		pulse.withPropertyValues("instance=old", "job.rate=200ms")
			.withBean(ObservationRegistry.class, () -> recordingRuns(delivered))
			.run(old -> pulse.withPropertyValues("instance=new", "job.rate=300ms")
				.withBean(ObservationRegistry.class, () -> recordingRuns(delivered))
				.run(current -> {
					assertThat(plan("pulse")).endsWith(" rate 300ms");
					int before = delivered.size();
					Eventually.await("fifteen occurrences delivered beside each other", Duration.ofSeconds(60), () -> {
						if (!plan("pulse").endsWith(" rate 300ms")) {
							flippedBack.set(true);
						}
						return delivered.size() >= before + 15;
					});
				}));

		assertThat(flippedBack).as("the old version never planned its own rate again").isFalse();
		assertThat(runs).as("every occurrence delivered ran, on whichever version claimed it")
			.hasSameSizeAs(delivered);
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void aNewScheduleDeployedWhileARunIsUnderWayWaitsForItAndPlansTheNextOne() {
		// A run held open while an instance with another rate starts: the job still runs once at a
		// time, and the held run plans the next occurrence by the new rate when it ends.
		SlowPulseJob.reset();
		ApplicationContextRunner slow = runner.withUserConfiguration(SlowPulse.class);
		slow.withPropertyValues("job.rate=200ms").run(old -> {
			assertThat(old).hasNotFailed();
			try {
				Eventually.await("the old version's first run, held", () -> SlowPulseJob.starts.get() >= 1);
				slow.withPropertyValues("job.rate=300ms").run(current -> {
					assertThat(current).hasNotFailed();
					// Up to 3 s for a second run to start while the first is still held.
					Eventually.holdsWithin(Duration.ofSeconds(3), () -> SlowPulseJob.starts.get() >= 2);
				});
			}
			finally {
				SlowPulseJob.gate.countDown();
			}
		});

		assertThat(SlowPulseJob.mostAtOnce).as("runs of the job under way at once (starts while the first was held: %s)",
				SlowPulseJob.starts.get() - 1).hasValue(1);
		assertThat(plan("slow-pulse")).as("planned after the held run, by the new schedule").endsWith(" rate 300ms");
		assertThat(occurrencePending("slow-pulse@" + plannedDue("slow-pulse"))).isTrue();
	}

	@Test
	void restartingWithTheSameScheduleKeepsThePlan() {
		ApplicationContextRunner hourly = runner.withUserConfiguration(Pulse.class)
			.withPropertyValues("job.rate=1h", "job.initial-delay=1h");
		hourly.run(context -> {
		});
		String planned = plan("pulse");

		hourly.run(context -> {
		});

		assertThat(plan("pulse")).isEqualTo(planned);
		assertThat(redis.node().call("ZCARD", "warden:task:{" + QUEUE + "}:due")).isEqualTo(1L);
	}

	@Test
	void aJobRemovedFromTheCodeIsRemovedWhenAnInstanceWithoutItStarts() {
		runner.withUserConfiguration(Pulse.class).withPropertyValues("job.rate=1h", "job.initial-delay=1h").run(context -> {
		});
		long due = plannedDue("pulse");

		runner.withUserConfiguration(Nightly.class).run(context -> assertThat(context).hasNotFailed());

		assertThat(plan("pulse")).isNull();
		assertThat(occurrencePending("pulse@" + due)).isFalse();
		assertThat(plan("Nightly.report")).as("named after the class and method").endsWith(" cron 0 0 2 * * * Europe/Paris");
	}

	@Test
	void anInstanceWithoutRecurringTasksLeavesTheJobsOfTheOthersAlone() {
		runner.withUserConfiguration(Pulse.class).withPropertyValues("job.rate=1h", "job.initial-delay=1h").run(context -> {
		});
		String planned = plan("pulse");

		runner.run(context -> assertThat(context).hasNotFailed());

		assertThat(plan("pulse")).isEqualTo(planned);
		assertThat(occurrencePending("pulse@" + plannedDue("pulse"))).isTrue();
	}

	@Test
	void aFailingRunBecomesADeadLetterWithItsErrorWhileLaterOccurrencesGoOn() {
		runner.withUserConfiguration(Failing.class)
			.withPropertyValues("warden.delayed-task.queues." + QUEUE + ".max-attempts=1")
			.run(context -> {
				DelayedQueue<Object> queue = context.getBean(Warden.class).getDelayedQueue(QUEUE);
				Eventually.await("three dead letters", () -> queue.deadLetters().size() >= 3);
				assertThat(queue.deadLetters()).allSatisfy(dead -> {
					assertThat(dead.id()).startsWith("failing@");
					assertThat(dead.error()).contains("the report server is down");
				});
				assertThat(queue.size()).as("the next occurrence is planned").isEqualTo(1);
			});
	}

	@Test
	@Tag(SCHEDULING_TIMING)
	void aRetriedOccurrencePlansNothingSoTheJobKeepsOneChainOfOccurrences() {
		runner.withUserConfiguration(FailingOnce.class)
			.withPropertyValues("warden.delayed-task.queues." + QUEUE + ".max-attempts=2",
					"warden.delayed-task.queues." + QUEUE + ".backoff=700ms")
			.run(context -> {
				Eventually.await("the first run failed", Duration.ofSeconds(10), () -> runs.contains("failed"));
				// Its retry comes 700 ms later, after the next occurrences ran.
				long settled = redisMillis() + 1_000;
				awaitRedisPast(settled);
				assertThat(context.getBean(Warden.class).getDelayedQueue(QUEUE).deadLetterCount())
					.as("the retry succeeded")
					.isZero();
				Eventually.await("four runs since", Duration.ofSeconds(10), () -> runsSince(settled).size() >= 4);
				// One chain of fixed-delay occurrences starts a run at least 300 ms after the one before
				// ended; a retry that planned too would have started a second chain beside it, whose
				// runs fall between.
				List<Long> starts = runsSince(settled);
				for (int i = 1; i < starts.size(); i++) {
					assertThat(starts.get(i) - starts.get(i - 1)).as("runs at " + starts).isGreaterThanOrEqualTo(300);
				}
			});
	}

	/** The Redis times at which the failing-once job's runs started, from {@code since} on. */
	private static List<Long> runsSince(long since) {
		return runs.stream()
			.filter(run -> run.startsWith("ran "))
			.map(run -> Long.parseLong(run.substring(4)))
			.filter(start -> start > since)
			.sorted()
			.toList();
	}

	@Test
	void aCronJobRunsAtItsCronTimesByRedisClock() {
		runner.withUserConfiguration(EverySecond.class).run(context -> {
			Eventually.await("two runs", () -> runs.size() >= 2);
		});
		for (String run : List.copyOf(runs)) {
			long next = Long.parseLong(run.substring(run.indexOf(' ') + 1));
			assertThat(next % 1_000).as("a whole second").isZero();
		}
	}

	@Test
	void theQueueIsNamedAfterTheApplication() {
		WardenApplications.runner(redis.node())
			.withUserConfiguration(Nightly.class)
			.withPropertyValues("spring.application.name=shop")
			.run(context -> assertThat(context).hasNotFailed());

		assertThat(redis.node().call("HGET", "warden:task:{recurring:shop}:recurring", "Nightly.report")).isNotNull();
	}

	@Test
	void invalidJobsFailStartupNamingTheMethod() {
		runner.withUserConfiguration(WithParameter.class)
			.run(context -> assertThat(invalid(context.getStartupFailure()))
				.hasMessageContaining("WithParameter.report(String)")
				.hasMessageContaining("takes none"));
		runner.withUserConfiguration(TwoSchedules.class)
			.run(context -> assertThat(invalid(context.getStartupFailure()))
				.hasMessageContaining("exactly one of cron, fixedRate and fixedDelay"));
		runner.withUserConfiguration(BadCron.class)
			.run(context -> assertThat(invalid(context.getStartupFailure()))
				.hasMessageContaining("cron expression '0 0 25 * * *'"));
		runner.withUserConfiguration(Pulse.class, SamePulseName.class)
			.withPropertyValues("job.rate=1h")
			.run(context -> assertThat(invalid(context.getStartupFailure()))
				.hasMessageContaining("Two @RecurringTask jobs are named 'pulse'"));
	}

	/** The {@link InvalidAnnotationException} that failed startup. */
	private static InvalidAnnotationException invalid(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidAnnotationException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("Startup did not fail with InvalidAnnotationException", failure);
	}

	private static String plan(String job) {
		return (String) redis.node().call("HGET", PLANS, job);
	}

	private static long plannedDue(String job) {
		String plan = plan(job);
		assertThat(plan).as("the plan of " + job).isNotNull();
		return Long.parseLong(plan.substring(0, plan.indexOf(' ')));
	}

	private static boolean occurrencePending(String id) {
		return redis.node().call("ZSCORE", "warden:task:{" + QUEUE + "}:due", id) != null;
	}

	private static long redisMillis() {
		@SuppressWarnings("unchecked")
		List<Object> time = (List<Object>) redis.node().call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
	}

	private static void awaitRedisPast(long millis) throws InterruptedException {
		Eventually.await("Redis's clock past " + millis, Duration.ofSeconds(10), () -> redisMillis() > millis);
	}

	/** Records a run: the instance and the job's planned next due time. */
	static void record(String instance, String job) {
		runs.add(instance + " " + plannedDue(job));
	}

	@Configuration(proxyBeanMethods = false)
	static class Pulse {

		@Bean
		PulseJob pulseJob(org.springframework.core.env.Environment environment) {
			return new PulseJob(environment.getProperty("instance", "a"));
		}

	}

	static class PulseJob {

		private final String instance;

		PulseJob(String instance) {
			this.instance = instance;
		}

		@RecurringTask(name = "pulse", fixedRate = "${job.rate}", initialDelay = "${job.initial-delay:0s}")
		public void pulse() {
			record(instance, "pulse");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowPulse {

		@Bean
		SlowPulseJob slowPulseJob() {
			return new SlowPulseJob();
		}

	}

	/** Counts its runs under way at once, across instances; each run waits for the gate. */
	static class SlowPulseJob {

		static final AtomicInteger starts = new AtomicInteger();

		static final AtomicInteger running = new AtomicInteger();

		static final AtomicInteger mostAtOnce = new AtomicInteger();

		static volatile CountDownLatch gate = new CountDownLatch(1);

		static void reset() {
			starts.set(0);
			running.set(0);
			mostAtOnce.set(0);
			gate = new CountDownLatch(1);
		}

		@RecurringTask(name = "slow-pulse", fixedRate = "${job.rate:200ms}")
		public void pulse() throws InterruptedException {
			mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
			starts.incrementAndGet();
			try {
				gate.await(30, TimeUnit.SECONDS);
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SkippingPulse {

		@Bean
		SkippingJob skippingJob(org.springframework.core.env.Environment environment) {
			return new SkippingJob(environment.getProperty("instance", "a"));
		}

	}

	static class SkippingJob {

		private final String instance;

		SkippingJob(String instance) {
			this.instance = instance;
		}

		@RecurringTask(name = "skipping", fixedRate = "${job.rate}", initialDelay = "${job.initial-delay:0s}",
				misfire = Misfire.SKIP)
		public void pulse() {
			record(instance, "skipping");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Nightly {

		@Bean
		Nightly.Jobs nightlyJobs() {
			return new Jobs();
		}

		static class Jobs {

			@RecurringTask(name = "Nightly.report", cron = "0 0 2 * * *", zone = "Europe/Paris")
			public void report() {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Failing {

		@Bean
		Failing.Job failingJob() {
			return new Job();
		}

		static class Job {

			@RecurringTask(name = "failing", fixedRate = "300ms")
			public void report() {
				throw new IllegalStateException("the report server is down");
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingOnce {

		@Bean
		FailingOnce.Job failingOnceJob() {
			return new Job();
		}

		static class Job {

			private final AtomicInteger calls = new AtomicInteger();

			@RecurringTask(name = "failing-once", fixedDelay = "300ms")
			public void report() {
				if (calls.incrementAndGet() == 1) {
					runs.add("failed");
					throw new IllegalStateException("the first run fails");
				}
				runs.add("ran " + redisMillis());
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecond {

		@Bean
		EverySecond.Job everySecondJob() {
			return new Job();
		}

		static class Job {

			@RecurringTask(name = "every-second", cron = "* * * * * *")
			public void tick() {
				record("a", "every-second");
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithParameter {

		@Bean
		WithParameter withParameterJob() {
			return new WithParameter();
		}

		@RecurringTask(fixedRate = "1h")
		public void report(String day) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoSchedules {

		@Bean
		TwoSchedules twoSchedulesJob() {
			return new TwoSchedules();
		}

		@RecurringTask(fixedRate = "1h", cron = "0 0 * * * *")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadCron {

		@Bean
		BadCron badCronJob() {
			return new BadCron();
		}

		@RecurringTask(cron = "0 0 25 * * *")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SamePulseName {

		@Bean
		SamePulseName samePulseNameJob() {
			return new SamePulseName();
		}

		@RecurringTask(name = "pulse", fixedRate = "2h")
		public void other() {
		}

	}

}
