package dev.warden.autoconfigure;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.warden.Eventually;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A context paused and restarted, as the test framework does to a cached context while another is
 * in use: Warden works again after the restart, and a paused context runs no tasks, so that those
 * scheduled in the context in use run there.
 */
class ContextPauseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	@AfterEach
	void close() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { first, second }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void aRestartedContextSchedulesAndRunsTasks() throws Exception {
		first = start("first");
		first.pause();
		first.restart();

		first.getBean(Reminders.class).remind("after-restart");

		Eventually.await("the task ran", () -> first.getBean(Reminders.class).ran().contains("after-restart"));
	}

	@Test
	void tasksScheduledInTheContextInUseRunThereWhileTheOtherIsPaused() throws Exception {
		first = start("first");
		second = start("second");
		first.pause();
		for (int i = 0; i < 5; i++) {
			second.getBean(Reminders.class).remind("s" + i);
		}
		Eventually.await("all ran in the second", () -> second.getBean(Reminders.class).ran().size() == 5);

		second.pause();
		first.restart();
		for (int i = 0; i < 5; i++) {
			first.getBean(Reminders.class).remind("f" + i);
		}
		Eventually.await("all ran in the first", () -> first.getBean(Reminders.class).ran().size() == 5);
		assertThat(first.getBean(Reminders.class).ran()).allMatch(id -> id.startsWith("f"));
		assertThat(second.getBean(Reminders.class).ran()).allMatch(id -> id.startsWith("s"));
	}

	private static ConfigurableApplicationContext start(String name) {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.run("--spring.application.name=" + name, "--spring.data.redis.host=" + redis.node().host(),
					"--spring.data.redis.port=" + redis.node().port(), "--warden.delayed-task.shutdown-grace=5s");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

	}

	static class Reminders {

		private final Set<String> ran = ConcurrentHashMap.newKeySet();

		/** The ids of the reminders run here (a method: the bean is a proxy). */
		public Set<String> ran() {
			return ran;
		}

		@DelayedTask(queue = "pause-reminders", delay = "0ms")
		public void remind(String id) {
			ran.add(id);
		}

	}

}
