package dev.warden.task;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.WardenApplications;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A change of schedule deployed while a run is under way: the job still runs once at a time, and
 * the run under way plans the next occurrence by the new schedule when it ends.
 */
class RecurringRedeployTests {

	private static final String QUEUE = "recurring-redeploy-test";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.recurring.queue=" + QUEUE, "warden.recurring.misfire-threshold=500ms")
		.withUserConfiguration(Held.class);

	@BeforeEach
	void clear() {
		HeldJob.reset();
		redis.node().call("FLUSHALL");
	}

	@Test
	void aNewScheduleDeployedWhileARunIsUnderWayDoesNotRunTheJobBesideIt() {
		runner.withPropertyValues("job.rate=200ms").run(old -> {
			assertThat(old).hasNotFailed();
			try {
				Eventually.await("the old version's first run, held", () -> HeldJob.starts.get() >= 1);
				runner.withPropertyValues("job.rate=300ms").run(current -> {
					assertThat(current).hasNotFailed();
					// Up to 3 s for a second run to start while the first is still held.
					Eventually.holdsWithin(java.time.Duration.ofSeconds(3), () -> HeldJob.starts.get() >= 2);
				});
			}
			finally {
				HeldJob.gate.countDown();
			}
		});
		assertThat(HeldJob.mostAtOnce).as("runs of the job under way at once (starts while the first was held: %s)",
				HeldJob.starts.get() - 1).hasValue(1);
		String plan = (String) redis.node().call("HGET", "warden:task:{" + QUEUE + "}:recurring", "held");
		assertThat(plan).as("planned after the held run, by the new schedule").endsWith(" rate 300ms");
		String next = "held@" + plan.substring(0, plan.indexOf(' '));
		assertThat(redis.node().call("ZSCORE", "warden:task:{" + QUEUE + "}:due", next)).as(next).isNotNull();
	}

	@Configuration(proxyBeanMethods = false)
	static class Held {

		@Bean
		HeldJob heldJob() {
			return new HeldJob();
		}

	}

	/** Counts its runs under way at once; every run waits for the gate. */
	static class HeldJob {

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

		@RecurringTask(name = "held", fixedRate = "${job.rate}")
		public void run() throws InterruptedException {
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

}
