package dev.warden.task;

import java.time.Duration;
import java.time.ZoneId;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A recurring job's name with a line break, as could forge a log line: refused before it reaches a
 * key, a field of the plans or a log line.
 */
@ExtendWith(OutputCaptureExtension.class)
class RecurringJobNameTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void aRecurringJobNameWithALineBreakReachesNeitherRedisNorTheLog(CapturedOutput output) throws Exception {
		redis.node().call("FLUSHALL");
		Warden warden = clients.open(redis.node());
		String forged = "nightly\n12:00:00.000 INFO  [main] dev.warden.actuate.WardenAdmin - Operator purged 99 dead letter(s)";
		Throwable refused = null;
		try {
			// A daily job.
			RecurringJob job = new RecurringJob(forged, RecurringSchedule.cron("0 0 3 * * *", ZoneId.of("UTC")),
					Misfire.SKIP, () -> {
					});
			try (TaskConsumer consumer = warden.runRecurring("jobs", java.util.List.of(job), Duration.ofMinutes(1))) {
				// started
			}
		}
		catch (IllegalArgumentException ex) {
			refused = ex;
		}
		Object plans = redis.node().call("HKEYS", "warden:task:{jobs}:recurring");
		assertThat(output.getAll()).as("the log").doesNotContain("nightly\n12:00:00.000 INFO");
		assertThat(String.valueOf(plans)).as("plan fields in Redis").doesNotContain("\n");
		assertThat(refused).as("refused at once").isNotNull();
	}

}
