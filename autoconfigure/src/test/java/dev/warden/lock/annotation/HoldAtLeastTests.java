package dev.warden.lock.annotation;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.RedisChannels;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(holdAtLeast = ...)} with {@code @Scheduled}: two instances whose cron
 * fires 300 ms apart (the second's scheduler clock runs 300 ms behind) run a job once per second
 * between them when its lock is held at least 800 ms, and twice without it.
 */
class HoldAtLeastTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** Every run: {@code <job> <instance> <wall-clock second>}. */
	static final List<String> runs = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.lock.key-prefix=")
		.withUserConfiguration(Instance.class);

	@BeforeEach
	void clear() {
		runs.clear();
	}

	@Test
	void aScheduledJobHeldAtLeastLongerThanTheSkewRunsOncePerSecondAcrossTwoInstances() {
		Map<Long, List<String>> bySecond = runBothFor("guarded");

		// Whichever instance ran first keeps it: its hold outlasts the other's firing in the same
		// second (a: 0 to 800 ms, b fires at 300) or reaches into the next (b: 300 to 1,100 ms, a
		// fires at 1,000).
		assertThat(bySecond.values()).as("runs per second: " + bySecond).allSatisfy(ran -> assertThat(ran).hasSize(1));
	}

	@Test
	void withoutAMinimumHoldTheInstanceThatFiresLaterRunsTheJobAgain() {
		Map<Long, List<String>> bySecond = runBothFor("unguarded");

		assertThat(bySecond.values()).as("runs per second: " + bySecond)
			.anySatisfy(ran -> assertThat(ran).containsExactlyInAnyOrder("a", "b"));
	}

	@Test
	void theLockStaysHeldForTheRestOfTheMinimumAndThenExpires() {
		runner.withPropertyValues("instance=a").run(context -> {
			Warden warden = context.getBean(Warden.class);
			long start = System.nanoTime();
			context.getBean(Jobs.class).once();
			DistributedReentrantLock lock = warden.getLock("once");
			assertThat(lock.isLocked()).as("held after the method returned").isTrue();
			assertThat(lock.remainingTimeToLive()).isBetween(1L, 1_000L);
			assertThat(lock.isHeldByCurrentThread()).as("by a fresh owner, not the thread").isFalse();
			assertThat(warden.activeLeaseRenewals()).as("nothing renews it").isZero();
			Eventually.await("the lock expired", Duration.ofSeconds(5), () -> !lock.isLocked());
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(950);
			assertThat(runs).containsExactly("once a");
		});
	}

	@Test
	void unlockAfterLeavesTheLockToItsNewLeaseAndRefusesANonHolder() throws Exception {
		runner.withPropertyValues("instance=a").run(context -> {
			Warden warden = context.getBean(Warden.class);
			DistributedReentrantLock lock = warden.getLock("unlock-after");
			LockOwner owner = warden.newOwner();
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();

			lock.unlockAfterAsync(owner, 500, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);

			assertThat(lock.remainingTimeToLive()).isBetween(1L, 500L);
			assertThat(lock.tryLock(warden.newOwner(), 0, TimeUnit.SECONDS)).isFalse();
			assertThat(lock.unlockAfterAsync(warden.newOwner(), 1, TimeUnit.SECONDS)).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(IllegalMonitorStateException.class);
			assertThat(lock.tryLock(warden.newOwner(), 5, TimeUnit.SECONDS)).as("free once the lease ran out").isTrue();
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> lock.unlockAfterAsync(owner, -1, TimeUnit.SECONDS));
		});
	}

	@Test
	void aWaiterAsleepForTheOldLeaseTakesTheLockWhenTheShorterOneEnds() throws Exception {
		runner.withPropertyValues("instance=a").run(context -> {
			Warden warden = context.getBean(Warden.class);
			DistributedReentrantLock lock = warden.getLock("unlock-after-waiter");
			LockOwner holder = warden.newOwner();
			assertThat(lock.tryLock(holder, 0, TimeUnit.SECONDS)).as("under the watchdog: a 30 s lease").isTrue();
			ExecutorService threads = Executors.newSingleThreadExecutor();
			try {
				Future<Boolean> waiting = threads.submit(() -> lock.tryLock(warden.newOwner(), 10, TimeUnit.SECONDS));
				RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{unlock-after-waiter}", 1);

				lock.unlockAfterAsync(holder, 300, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);

				// Within 5 s: long before its 10 s wait ends, which is when it would try again otherwise.
				assertThat(waiting.get(5, TimeUnit.SECONDS)).as("woken to read the new lease, then acquired").isTrue();
			}
			finally {
				threads.shutdownNow();
			}
		});
	}

	/** Runs instances a and b together until the job ran in four whole seconds; its runs by second. */
	private Map<Long, List<String>> runBothFor(String job) {
		Map<Long, List<String>> bySecond = new TreeMap<>();
		runner.withPropertyValues("instance=a", "jobs.enabled=true").run(a -> {
			runner.withPropertyValues("instance=b", "clock-behind-ms=300", "jobs.enabled=true").run(b -> {
				long firstSecond = System.currentTimeMillis() / 1000 + 1;
				Eventually.await("runs in four whole seconds", Duration.ofSeconds(15),
						() -> seconds(job).stream().filter(second -> second > firstSecond).count() >= 5);
			});
		});
		List<Long> seconds = seconds(job);
		for (String run : List.copyOf(runs)) {
			String[] parts = run.split(" ");
			long second = Long.parseLong(parts[2]);
			// Whole seconds while both ran: not the first (b may not have started), not the last.
			if (parts[0].equals(job) && second > seconds.get(0) + 1 && second < seconds.get(seconds.size() - 1)) {
				bySecond.computeIfAbsent(second, key -> new CopyOnWriteArrayList<>()).add(parts[1]);
			}
		}
		assertThat(bySecond).as("whole seconds observed").hasSizeGreaterThanOrEqualTo(3);
		return bySecond;
	}

	private static List<Long> seconds(String job) {
		return runs.stream()
			.filter(run -> run.startsWith(job + " "))
			.map(run -> Long.parseLong(run.substring(run.lastIndexOf(' ') + 1)))
			.distinct()
			.sorted()
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Instance {

		@Bean
		ThreadPoolTaskScheduler taskScheduler(Environment environment) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setPoolSize(2);
			long behind = environment.getProperty("clock-behind-ms", Long.class, 0L);
			scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(-behind)));
			scheduler.setThreadNamePrefix("scheduler-" + environment.getProperty("instance") + "-");
			return scheduler;
		}

		@Bean
		Jobs jobs(Environment environment) {
			return new Jobs(environment.getProperty("instance", "a"),
					environment.getProperty("jobs.enabled", Boolean.class, false));
		}

	}

	static class Jobs {

		private final String instance;

		private final boolean enabled;

		Jobs(String instance, boolean enabled) {
			this.instance = instance;
			this.enabled = enabled;
		}

		@Scheduled(cron = "* * * * * *")
		@DistributedLock(name = "guarded", onFailure = OnLockFailure.SKIP, holdAtLeast = 800)
		public void guarded() {
			record("guarded");
		}

		@Scheduled(cron = "* * * * * *")
		@DistributedLock(name = "unguarded", onFailure = OnLockFailure.SKIP)
		public void unguarded() {
			record("unguarded");
		}

		@DistributedLock(name = "once", holdAtLeast = 1, timeUnit = TimeUnit.SECONDS)
		public void once() {
			runs.add("once " + instance);
		}

		private void record(String job) {
			if (enabled) {
				runs.add(job + " " + instance + " " + System.currentTimeMillis() / 1000);
			}
		}

	}

}
