package dev.warden.compat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.task.annotation.TaskUpgrade;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The applications of the mixed-version suite, one build of a service per version: the first
 * takes an order's reminder with one argument (version 1 of the task), the second with two
 * (version 2); both run a recurring heartbeat and record each run in Redis.
 */
final class MixedVersionApps {

	/** What the reminders of this JVM received. */
	static final BlockingQueue<List<Object>> reminded = new LinkedBlockingQueue<>();

	private MixedVersionApps() {
	}

	/** Each recurring run in the list {@code compat:heartbeats}: its occurrence's task id and the build. */
	static void heartbeat(StringRedisTemplate redis, String build) {
		redis.opsForList().rightPush("compat:heartbeats", dev.warden.task.TaskClaim.current().id() + " " + build);
	}

	/** The older build: version 1 of the reminder. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Before {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

		@Bean
		Heartbeat heartbeat(StringRedisTemplate redis) {
			return new Heartbeat(redis, "before");
		}

		static class Reminders {

			@DelayedTask(queue = "evolving", delay = "1h", id = "#order")
			public void remind(String order) {
				reminded.add(List.of(order));
				VersionDriver.event("reminded " + order);
			}

		}

	}

	/** The newer build: version 2 of the reminder, with a priority, and the upgrade of version 1. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class After {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

		@Bean
		Heartbeat heartbeat(StringRedisTemplate redis) {
			return new Heartbeat(redis, "after");
		}

		static class Reminders {

			@DelayedTask(queue = "evolving", delay = "1h", id = "#order", version = 2)
			public void remind(String order, String priority) {
				reminded.add(List.of(order, priority));
				VersionDriver.event("reminded " + order + " " + priority);
			}

			@TaskUpgrade(queue = "evolving", from = 1)
			static Object[] fromVersion1(String order) {
				return new Object[] { order, "normal" };
			}

		}

	}

	/** A recurring job of one name in both builds: each occurrence runs once, in one of them. */
	static class Heartbeat {

		private final StringRedisTemplate redis;

		private final String build;

		Heartbeat(StringRedisTemplate redis, String build) {
			this.redis = redis;
			this.build = build;
		}

		@RecurringTask(name = "heartbeat", fixedRate = "300ms")
		public void beat() {
			heartbeat(redis, build);
		}

	}

}
