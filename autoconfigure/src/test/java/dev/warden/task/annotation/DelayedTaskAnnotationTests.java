package dev.warden.task.annotation;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DelayedTaskAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.delayed-task.shutdown-grace=5s",
				"reminders.delay=200ms");

	@Test
	void callSchedulesAndTheMethodRunsLaterWithItsArguments() {
		runner.withUserConfiguration(Handlers.class).run(context -> {
			Reminders reminders = context.getBean(Reminders.class);
			Recorder recorder = context.getBean(Recorder.class);
			reminders.remind(7L, new Note("pay", List.of(new Note("invoice", List.of()))));
			assertThat(recorder.received).isEmpty();

			Object[] arguments = recorder.received.poll(10, TimeUnit.SECONDS);
			assertThat(arguments).containsExactly(7L, new Note("pay", List.of(new Note("invoice", List.of()))));
			assertThat(recorder.received.poll(300, TimeUnit.MILLISECONDS)).isNull();
		});
	}

	@Test
	void theIdMakesSchedulingIdempotentAndReachableThroughTheQueue() {
		runner.withUserConfiguration(Handlers.class).run(context -> {
			Reminders reminders = context.getBean(Reminders.class);
			Recorder recorder = context.getBean(Recorder.class);
			DelayedQueue<Object> queue = context.getBean(Warden.class).getDelayedQueue("timeouts");
			reminders.timeout(1);
			reminders.timeout(1);
			reminders.timeout(2);
			assertThat(queue.size()).isEqualTo(2);
			assertThat(queue.contains("order-1")).isTrue();
			assertThat(queue.cancel("order-2")).isTrue();

			Eventually.await("order 1 closed", () -> recorder.timeouts.containsKey(1L));
			Eventually.await("queue drained", () -> queue.size() == 0);
			assertThat(recorder.timeouts).containsOnlyKeys(1L);
			assertThat(recorder.timeouts.get(1L)).hasValue(1);
		});
	}

	@Test
	void deliveryRunsTheMethodsOtherAdviceSchedulingDoesNot() {
		runner.withUserConfiguration(Handlers.class).run(context -> {
			Reminders reminders = context.getBean(Reminders.class);
			Recorder recorder = context.getBean(Recorder.class);
			reminders.locked("l");
			assertThat(context.getBean(Warden.class).getLock("warden:lock:reminder:l").isLocked()).isFalse();
			assertThat(recorder.heldDuringDelivery.poll(10, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void failingHandlerIsRetriedThenDeadLettered() {
		runner.withUserConfiguration(Handlers.class).run(context -> {
			Reminders reminders = context.getBean(Reminders.class);
			Recorder recorder = context.getBean(Recorder.class);
			reminders.failing("f");
			DelayedQueue<Object> queue = context.getBean(Warden.class).getDelayedQueue("failing");
			Eventually.await("dead letter", () -> !queue.deadLetters().isEmpty());
			DeadLetter letter = queue.deadLetters().get(0);
			assertThat(letter.attempts()).isEqualTo(2);
			assertThat(letter.payload()).isEqualTo("\"f\"");
			assertThat(letter.error()).contains("always fails");
			assertThat(recorder.failures).hasValue(2);
		});
	}

	@Test
	void blankTaskIdFailsTheCallAndSchedulesNothing() {
		runner.withUserConfiguration(Handlers.class).run(context -> {
			Reminders reminders = context.getBean(Reminders.class);
			assertThatIllegalArgumentException().isThrownBy(() -> reminders.named(" "))
				.withMessageContaining("Task id of");
			assertThat(context.getBean(Warden.class).getDelayedQueue("named").size()).isZero();
		});
	}

	@Test
	void invalidAnnotationsFailStartupNamingTheMethod() {
		runner.withUserConfiguration(NotVoid.class).run(context -> assertFailure(context, "NotVoid$Service.call()",
				"must return void"));
		runner.withUserConfiguration(BadDelay.class).run(context -> assertFailure(context, "BadDelay$Service.call()",
				"delay 'soon'"));
		runner.withUserConfiguration(UnknownParameter.class).run(context -> assertFailure(context,
				"UnknownParameter$Service.call(String)", "#orderID"));
		runner.withUserConfiguration(ObjectParameter.class).run(context -> assertFailure(context,
				"ObjectParameter$Service.call(Object)", "type Object"));
		// Jackson 3 finds no creator for it; Jackson 2 with Boot 3's parameter names module does, and
		// then sees the field it does not write: either way startup fails, naming the type.
		runner.withUserConfiguration(NoCreator.class).run(context -> assertFailure(context,
				"NoCreator$Service.call(Opaque)", "of type " + Opaque.class.getName() + " that",
				"JSON"));
		runner.withUserConfiguration(Handlers.class, SameQueue.class).run(context -> assertFailure(context,
				"Queue 'timeouts' has two @DelayedTask handlers"));
	}

	private static void assertFailure(AssertableApplicationContext context, String... fragments) {
		assertThat(context).hasFailed();
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		assertThat(messages.toString()).contains(fragments);
	}

	record Note(String text, List<Note> children) {
	}

	/** What the handlers saw; a bean of its own, since the handlers' bean is a proxy. */
	static class Recorder {

		final BlockingQueue<Object[]> received = new LinkedBlockingQueue<>();

		final Map<Long, AtomicInteger> timeouts = new ConcurrentHashMap<>();

		final BlockingQueue<Boolean> heldDuringDelivery = new LinkedBlockingQueue<>();

		final AtomicInteger failures = new AtomicInteger();

	}

	static class Reminders {

		private final Warden warden;

		private final Recorder recorder;

		Reminders(Warden warden, Recorder recorder) {
			this.warden = warden;
			this.recorder = recorder;
		}

		@DelayedTask(queue = "reminders", delay = "${reminders.delay}")
		public void remind(long userId, Note note) {
			recorder.received.add(new Object[] { userId, note });
		}

		@DelayedTask(queue = "timeouts", delay = "300ms", id = "'order-' + #orderId")
		public void timeout(long orderId) {
			recorder.timeouts.computeIfAbsent(orderId, id -> new AtomicInteger()).incrementAndGet();
		}

		@DelayedTask(queue = "locked", delay = "PT0.1S")
		@DistributedLock(name = "reminder", key = "#key")
		public void locked(String key) {
			recorder.heldDuringDelivery.add(warden.getLock("warden:lock:reminder:" + key).isLocked());
		}

		@DelayedTask(queue = "failing", delay = "0s", maxAttempts = 2, backoff = "50ms")
		public void failing(String key) {
			recorder.failures.incrementAndGet();
			throw new IllegalStateException("always fails");
		}

		@DelayedTask(queue = "named", delay = "1m", id = "#name")
		public void named(String name) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		Reminders reminders(Warden warden, Recorder recorder) {
			return new Reminders(warden, recorder);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SameQueue {

		@Bean
		Duplicate duplicate() {
			return new Duplicate();
		}

		static class Duplicate {

			@DelayedTask(queue = "timeouts", delay = "1m")
			public void again(long orderId) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotVoid {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DelayedTask(delay = "1m")
			public String call() {
				return "";
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadDelay {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DelayedTask(delay = "soon")
			public void call() {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownParameter {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DelayedTask(delay = "1m", id = "#orderID")
			public void call(String orderId) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ObjectParameter {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DelayedTask(delay = "1m")
			public void call(Object anything) {
			}

		}

	}

	static final class Opaque {

		private final String value;

		Opaque(String value, int unused) {
			this.value = value + unused;
		}

		public String value() {
			return value;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoCreator {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DelayedTask(delay = "1m")
			public void call(Opaque opaque) {
			}

		}

	}

}
