package dev.warden.task.annotation;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.QueuedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task scheduled by one build of a service and run by the next, which changed the handler: what
 * reads across the deploy, what goes to the dead letters saying why, and how a version and a
 * {@link TaskUpgrade} carry what would not. Each case schedules through the old build's bean, due in
 * an hour, stops it, starts the new build and makes the task due.
 */
@ExtendWith(OutputCaptureExtension.class)
class TaskEvolutionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** What the new builds' handlers received. */
	static final BlockingQueue<Object[]> received = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node());

	@BeforeEach
	void clean() {
		redis.node().call("FLUSHALL");
		received.clear();
	}

	/** What became of the task in the new build: the arguments it ran with, or its dead letter. */
	record Outcome(Object @Nullable [] arguments, @Nullable DeadLetter deadLetter) {
	}

	private Outcome acrossADeploy(String queue, Class<?> oldBuild, Consumer<ApplicationContext> schedule,
			Class<?> newBuild) {
		runner.withUserConfiguration(oldBuild).run(context -> {
			assertThat(context).hasNotFailed();
			schedule.accept(context);
		});
		Outcome[] outcome = new Outcome[1];
		runner.withUserConfiguration(newBuild).run(context -> {
			assertThat(context).hasNotFailed();
			DelayedQueue<Object> tasks = context.getBean(Warden.class).getDelayedQueue(queue);
			assertThat(tasks.reschedule("t", Duration.ZERO)).as("the task scheduled by the old build").isTrue();
			Eventually.await("the task ran or died", Duration.ofSeconds(30),
					() -> !received.isEmpty() || tasks.deadLetterCount() > 0);
			// Already there if it ran: a dead letter means it never will, so no wait for it.
			Object[] arguments = received.poll();
			outcome[0] = new Outcome(arguments, (arguments != null) ? null : tasks.deadLetters().get(0));
		});
		return outcome[0];
	}

	// A field added: absent from old payloads, an object reads as null; a primitive cannot be absent.

	@Test
	void aFieldAddedReadsAsAbsent() {
		Outcome outcome = acrossADeploy("added", AddedBefore.Build.class,
				context -> context.getBean(AddedBefore.class).remind(new AddedBefore.Order("o-1")), AddedAfter.Build.class);
		assertThat(outcome.arguments()).containsExactly(new AddedAfter.Order("o-1", null, null));
	}

	@Test
	void aFieldAddedAsRequiredSendsOldTasksToTheDeadLettersNamingIt() {
		Outcome outcome = acrossADeploy("added-required", AddedRequiredBefore.Build.class,
				context -> context.getBean(AddedRequiredBefore.class).remind(new AddedBefore.Order("o-1")),
				AddedRequiredAfter.Build.class);
		assertThat(outcome.deadLetter()).isNotNull();
		assertThat(outcome.deadLetter().error()).contains("note");
	}

	// A field removed: the old payload's value is ignored.

	@Test
	void aFieldRemovedIsIgnored() {
		Outcome outcome = acrossADeploy("removed", RemovedBefore.Build.class,
				context -> context.getBean(RemovedBefore.class).remind(new RemovedBefore.Order("o-1", "gift")),
				RemovedAfter.Build.class);
		assertThat(outcome.arguments()).containsExactly(new RemovedAfter.Order("o-1"));
	}

	// A field renamed: @JsonAlias reads the old name.

	@Test
	void aFieldRenamedWithAnAliasReadsTheOldName() {
		Outcome outcome = acrossADeploy("renamed", RenamedBefore.Build.class,
				context -> context.getBean(RenamedBefore.class).remind(new RenamedBefore.Order("o-1")),
				RenamedAfter.Build.class);
		assertThat(outcome.arguments()).containsExactly(new RenamedAfter.Order("o-1"));
	}

	// A type widened: int to long, float to double, int to BigDecimal.

	@Test
	void aTypeWidenedReads() {
		Outcome outcome = acrossADeploy("widened", WidenedBefore.Build.class,
				context -> context.getBean(WidenedBefore.class).remind(new WidenedBefore.Order(7, 1.5f, 12)),
				WidenedAfter.Build.class);
		assertThat(outcome.arguments()).containsExactly(new WidenedAfter.Order(7L, 1.5, new BigDecimal("12")));
	}

	@Test
	void aTypeChangedToAnotherKindSendsTheTaskToTheDeadLettersWithTheReason() {
		Outcome outcome = acrossADeploy("changed", ChangedBefore.Build.class,
				context -> context.getBean(ChangedBefore.class).remind(new ChangedBefore.Order("A-17")),
				ChangedAfter.Build.class);
		assertThat(outcome.deadLetter()).isNotNull();
		assertThat(outcome.deadLetter().error()).contains("A-17").contains(ChangedAfter.Order.class.getName());
	}

	// A class moved: the payload names no class.

	@Test
	void aClassMovedReads() {
		Outcome outcome = acrossADeploy("moved", MovedBefore.Build.class,
				context -> context.getBean(MovedBefore.class).remind(new MovedBefore.Order("o-1", 2)),
				MovedAfter.Build.class);
		assertThat(outcome.arguments()).containsExactly(new MovedAfter.Order("o-1", 2));
	}

	// A parameter added or removed changes the payload's shape: a version and an upgrade carry it.

	@Test
	void aParameterAddedWithoutAnUpgradeSendsTheTaskToTheDeadLetters() {
		Outcome outcome = acrossADeploy("param-added", ParameterBefore.Build.class,
				context -> context.getBean(ParameterBefore.class).remind(new MovedBefore.Order("o-1", 2)),
				ParameterAddedUnversioned.Build.class);
		assertThat(outcome.deadLetter()).isNotNull();
		assertThat(outcome.deadLetter().error()).contains("Expected a JSON array of 2 values");
	}

	@Test
	void aParameterAddedWithAnUpgradeRunsTheOldTask() {
		Outcome outcome = acrossADeploy("param-added", ParameterBefore.Build.class,
				context -> context.getBean(ParameterBefore.class).remind(new MovedBefore.Order("o-1", 2)),
				ParameterAdded.Build.class);
		assertThat(outcome.arguments()).containsExactly(new MovedBefore.Order("o-1", 2), "normal");
	}

	@Test
	void aParameterRemovedWithAnUpgradeRunsTheOldTask() {
		Outcome outcome = acrossADeploy("param-removed", TwoParameters.Build.class,
				context -> context.getBean(TwoParameters.class).remind("o-1", 3), ParameterRemoved.Build.class);
		assertThat(outcome.arguments()).containsExactly("o-1:3");
	}

	@Test
	void anOldVersionWithoutItsUpgradeGoesToTheDeadLettersNamingIt() {
		Outcome outcome = acrossADeploy("param-removed", TwoParameters.Build.class,
				context -> context.getBean(TwoParameters.class).remind("o-1", 3), ParameterRemovedNoUpgrade.Build.class);
		assertThat(outcome.deadLetter()).isNotNull();
		assertThat(outcome.deadLetter().error()).contains("version 1").contains("no @TaskUpgrade from 1");
	}

	@Test
	void aNewerVersionIsLeftForANewerInstanceWithoutSpendingAttempts(CapturedOutput output) throws Exception {
		// A rollback, or an old instance still running: it must not kill the newer build's tasks.
		runner.withUserConfiguration(ParameterAdded.Build.class)
			.run(context -> context.getBean(ParameterAdded.class).remind(new MovedBefore.Order("o-1", 2), "urgent"));
		runner.withUserConfiguration(ParameterBeforeRetrying.Build.class).run(context -> {
			DelayedQueue<Object> tasks = context.getBean(Warden.class).getDelayedQueue("param-added");
			tasks.reschedule("t", Duration.ZERO);
			Eventually.await("left once", Duration.ofSeconds(30), () -> {
				List<QueuedTask> pending = tasks.pendingTasks(0, 1);
				return !pending.isEmpty() && pending.get(0).lastError() != null;
			});
			QueuedTask task = tasks.pendingTasks(0, 1).get(0);
			assertThat(task.lastError()).contains("version 2").contains("an instance of version 2 or later runs it");
			assertThat(task.attempts()).as("no attempt spent").isZero();
			assertThat(task.dueAt()).as("rechecked soon").isBefore(java.time.Instant.now().plusSeconds(30));
			assertThat(tasks.deadLetterCount()).isZero();
			assertThat(received).isEmpty();
		});
		assertThat(output.getOut().lines().filter(line -> line.contains("holds tasks written by a later version")))
			.as("one WARN for the queue").hasSize(1);
	}

	@Test
	void aNewerVersionLeftPastTheGraceIsADeadLetterThatANewerInstanceReDrives() throws Exception {
		runner.withUserConfiguration(ParameterAdded.Build.class)
			.run(context -> context.getBean(ParameterAdded.class).remind(new MovedBefore.Order("o-2", 2), "urgent"));
		runner.withUserConfiguration(ParameterBeforeRetrying.Build.class)
			.withPropertyValues("warden.delayed-task.newer-format-grace=300ms")
			.run(context -> {
				DelayedQueue<Object> tasks = context.getBean(Warden.class).getDelayedQueue("param-added");
				tasks.reschedule("t", Duration.ZERO);
				Eventually.await("a dead letter", Duration.ofSeconds(30), () -> tasks.deadLetterCount() == 1);
				DeadLetter letter = tasks.deadLetters(0, 1).get(0);
				assertThat(letter.error()).contains("left by instances that cannot read it")
					.contains("an instance of version 2 or later runs it");
				assertThat(letter.attempts()).as("no attempt spent").isZero();
				assertThat(received).isEmpty();
			});
		runner.withUserConfiguration(ParameterAdded.Build.class).run(context -> {
			DelayedQueue<Object> tasks = context.getBean(Warden.class).getDelayedQueue("param-added");
			assertThat(tasks.requeueDeadLetter("t")).isTrue();
			Object[] arguments = received.poll(30, TimeUnit.SECONDS);
			assertThat(arguments).as("run by the newer build").isNotNull();
			assertThat(arguments[1]).isEqualTo("urgent");
		});
	}

	@Test
	void invalidUpgradesFailStartupNamingTheMethod() {
		runner.withUserConfiguration(BadUpgrades.NotStatic.class)
			.run(context -> assertFailure(context, "NotStatic.upgrade(String)", "must be static"));
		runner.withUserConfiguration(BadUpgrades.TooNew.class)
			.run(context -> assertFailure(context, "TooNew.upgrade(String)", "reads version 2", "version 2"));
		runner.withUserConfiguration(BadUpgrades.WrongReturn.class)
			.run(context -> assertFailure(context, "WrongReturn.upgrade(String)", "returns Integer"));
		runner.withUserConfiguration(BadUpgrades.NoSuchQueue.class)
			.run(context -> assertFailure(context, "NoSuchQueue.upgrade(String)", "queue 'elsewhere'"));
	}

	private static void assertFailure(org.springframework.boot.test.context.assertj.AssertableApplicationContext context,
			String... fragments) {
		assertThat(context).hasFailed();
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		assertThat(messages.toString()).contains(fragments);
	}

	// The builds. Old builds schedule only; new builds record what they run.

	public static class AddedBefore {

		public record Order(String id) {
		}

		@DelayedTask(queue = "added", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			AddedBefore handler() {
				return new AddedBefore();
			}

		}

	}

	public static class AddedAfter {

		public record Order(String id, @Nullable String note, @Nullable Integer priority) {
		}

		@DelayedTask(queue = "added", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			AddedAfter handler() {
				return new AddedAfter();
			}

		}

	}

	public static class AddedRequiredBefore {

		@DelayedTask(queue = "added-required", delay = "1h", id = "'t'")
		public void remind(AddedBefore.Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			AddedRequiredBefore handler() {
				return new AddedRequiredBefore();
			}

		}

	}

	public static class AddedRequiredAfter {

		public record Order(String id, @JsonProperty(required = true) String note) {
		}

		@DelayedTask(queue = "added-required", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			AddedRequiredAfter handler() {
				return new AddedRequiredAfter();
			}

		}

	}

	public static class RemovedBefore {

		public record Order(String id, String note) {
		}

		@DelayedTask(queue = "removed", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			RemovedBefore handler() {
				return new RemovedBefore();
			}

		}

	}

	public static class RemovedAfter {

		public record Order(String id) {
		}

		@DelayedTask(queue = "removed", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			RemovedAfter handler() {
				return new RemovedAfter();
			}

		}

	}

	public static class RenamedBefore {

		public record Order(String id) {
		}

		@DelayedTask(queue = "renamed", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			RenamedBefore handler() {
				return new RenamedBefore();
			}

		}

	}

	public static class RenamedAfter {

		public record Order(@JsonAlias("id") String orderNumber) {
		}

		@DelayedTask(queue = "renamed", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			RenamedAfter handler() {
				return new RenamedAfter();
			}

		}

	}

	public static class WidenedBefore {

		public record Order(int quantity, float weight, int total) {
		}

		@DelayedTask(queue = "widened", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			WidenedBefore handler() {
				return new WidenedBefore();
			}

		}

	}

	public static class WidenedAfter {

		public record Order(long quantity, double weight, BigDecimal total) {
		}

		@DelayedTask(queue = "widened", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			WidenedAfter handler() {
				return new WidenedAfter();
			}

		}

	}

	public static class ChangedBefore {

		public record Order(String number) {
		}

		@DelayedTask(queue = "changed", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ChangedBefore handler() {
				return new ChangedBefore();
			}

		}

	}

	public static class ChangedAfter {

		public record Order(long number) {
		}

		@DelayedTask(queue = "changed", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ChangedAfter handler() {
				return new ChangedAfter();
			}

		}

	}

	public static class MovedBefore {

		public record Order(String id, int quantity) {
		}

		@DelayedTask(queue = "moved", delay = "1h", id = "'t'")
		public void remind(Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			MovedBefore handler() {
				return new MovedBefore();
			}

		}

	}

	public static class MovedAfter {

		/** The same shape, another class: moved to another package, say. */
		public record Order(String id, int quantity) {
		}

		@DelayedTask(queue = "moved", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			MovedAfter handler() {
				return new MovedAfter();
			}

		}

	}

	public static class ParameterBefore {

		@DelayedTask(queue = "param-added", delay = "1h", id = "'t'")
		public void remind(MovedBefore.Order order) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterBefore handler() {
				return new ParameterBefore();
			}

		}

	}

	/** The old build, with the retries that leave a newer task to a newer instance. */
	public static class ParameterBeforeRetrying {

		@DelayedTask(queue = "param-added", delay = "1h", id = "'t'", maxAttempts = 5, backoff = "1h")
		public void remind(MovedBefore.Order order) {
			received.add(new Object[] { order });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterBeforeRetrying handler() {
				return new ParameterBeforeRetrying();
			}

		}

	}

	public static class ParameterAddedUnversioned {

		@DelayedTask(queue = "param-added", delay = "1h", id = "'t'", maxAttempts = 1)
		public void remind(MovedBefore.Order order, String priority) {
			received.add(new Object[] { order, priority });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterAddedUnversioned handler() {
				return new ParameterAddedUnversioned();
			}

		}

	}

	public static class ParameterAdded {

		@DelayedTask(queue = "param-added", delay = "1h", id = "'t'", maxAttempts = 1, version = 2)
		public void remind(MovedBefore.Order order, String priority) {
			received.add(new Object[] { order, priority });
		}

		@TaskUpgrade(queue = "param-added", from = 1)
		static Object[] fromVersion1(MovedBefore.Order order) {
			return new Object[] { order, "normal" };
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterAdded handler() {
				return new ParameterAdded();
			}

		}

	}

	public static class TwoParameters {

		@DelayedTask(queue = "param-removed", delay = "1h", id = "'t'")
		public void remind(String id, int priority) {
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			TwoParameters handler() {
				return new TwoParameters();
			}

		}

	}

	public static class ParameterRemoved {

		@DelayedTask(queue = "param-removed", delay = "1h", id = "'t'", maxAttempts = 1, version = 2)
		public void remind(String idAndPriority) {
			received.add(new Object[] { idAndPriority });
		}

		@TaskUpgrade(queue = "param-removed", from = 1)
		static String fromVersion1(String id, int priority) {
			return id + ":" + priority;
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterRemoved handler() {
				return new ParameterRemoved();
			}

		}

	}

	public static class ParameterRemovedNoUpgrade {

		@DelayedTask(queue = "param-removed", delay = "1h", id = "'t'", maxAttempts = 1, version = 2)
		public void remind(String idAndPriority) {
			received.add(new Object[] { idAndPriority });
		}

		@Configuration(proxyBeanMethods = false)
		static class Build {

			@Bean
			ParameterRemovedNoUpgrade handler() {
				return new ParameterRemovedNoUpgrade();
			}

		}

	}

	static class BadUpgrades {

		public static class NotStatic {

			@DelayedTask(queue = "bad-1", delay = "1h", version = 2)
			public void remind(String id) {
			}

			@TaskUpgrade(queue = "bad-1", from = 1)
			String upgrade(String id) {
				return id;
			}

			@Bean
			NotStatic notStatic() {
				return new NotStatic();
			}

		}

		public static class TooNew {

			@DelayedTask(queue = "bad-2", delay = "1h", version = 2)
			public void remind(String id) {
			}

			@TaskUpgrade(queue = "bad-2", from = 2)
			static String upgrade(String id) {
				return id;
			}

			@Bean
			TooNew tooNew() {
				return new TooNew();
			}

		}

		public static class WrongReturn {

			@DelayedTask(queue = "bad-3", delay = "1h", version = 2)
			public void remind(String id) {
			}

			@TaskUpgrade(queue = "bad-3", from = 1)
			static Integer upgrade(String id) {
				return 1;
			}

			@Bean
			WrongReturn wrongReturn() {
				return new WrongReturn();
			}

		}

		public static class NoSuchQueue {

			@DelayedTask(queue = "bad-4", delay = "1h", version = 2)
			public void remind(String id) {
			}

			@TaskUpgrade(queue = "elsewhere", from = 1)
			static String upgrade(String id) {
				return id;
			}

			@Bean
			NoSuchQueue noSuchQueue() {
				return new NoSuchQueue();
			}

		}

	}

}
