package dev.warden.task;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.WardenClients;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.test.redis.RedisServerExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task schedules and runs, and lock waits, as Micrometer observations, checked with the Observation
 * test kit: the trace context of the code that schedules a task travels with it through Redis, and
 * the run, on another client, continues it. A handler stands in for a tracer: it gives each trace
 * an id, writes it into a sender's carrier and reads it from a receiver's, as a tracer's
 * propagation handlers do with their headers.
 */
class TaskTracingTests {

	private static final ConsumerOptions TWO_ATTEMPTS = new ConsumerOptions(2, Duration.ofMillis(50),
			Duration.ofMillis(20), Duration.ofMinutes(1));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final TestObservationRegistry producer = traced();

	private final TestObservationRegistry consumer = traced();

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void theRunOnAnotherClientContinuesTheTraceOfTheCodeThatScheduledIt() throws Exception {
		Warden scheduling = clients.open(redis.node(), builder -> builder.observationRegistry(producer));
		Warden running = clients.open(redis.node(), builder -> builder.observationRegistry(consumer));
		CompletableFuture<Object> traceInHandler = new CompletableFuture<>();

		Observation request = Observation.start("http.request", producer);
		try (Observation.Scope scope = request.openScope()) {
			scheduling.getDelayedQueue("mail", String.class).schedule("welcome", "hi", Duration.ZERO);
		}
		request.stop();
		String trace = (String) request.getContext().get(TraceHandler.TRACE);
		try (TaskConsumer worker = running.getDelayedQueue("mail", String.class).consume(delivery -> {
			Observation current = consumer.getCurrentObservation();
			traceInHandler.complete((current != null) ? current.getContext().get(TraceHandler.TRACE) : "none");
		})) {
			assertThat(traceInHandler.get(10, TimeUnit.SECONDS)).as("the handler runs inside the run, in the trace")
				.isEqualTo(trace);
			Eventually.await("the run stopped", () -> stopped(consumer, "warden.task.run") == 1);
		}

		producer.assertThat().hasObservationWithNameEqualTo("warden.task.schedule").that()
			.hasContextualNameEqualTo("schedule mail")
			.hasLowCardinalityKeyValue("queue", "mail")
			.hasHighCardinalityKeyValue("task.id", "welcome")
			.hasParentObservationEqualTo(request)
			.hasBeenStopped();
		consumer.assertThat().hasObservationWithNameEqualTo("warden.task.run").that()
			.hasContextualNameEqualTo("run mail")
			.hasLowCardinalityKeyValue("queue", "mail")
			.hasLowCardinalityKeyValue("outcome", "completed")
			.hasHighCardinalityKeyValue("task.id", "welcome")
			.hasHighCardinalityKeyValue("attempt", "1")
			.satisfies(context -> assertThat((String) context.get(TraceHandler.TRACE)).isEqualTo(trace))
			.hasBeenStopped();
	}

	@Test
	void aFailedRunIsAnErrorAndItsRetryKeepsTheTrace() throws Exception {
		Warden warden = clients.open(redis.node(), builder -> builder.observationRegistry(producer));
		DelayedQueue<String> queue = warden.getDelayedQueue("flaky", String.class);
		Observation request = Observation.start("http.request", producer);
		try (Observation.Scope scope = request.openScope()) {
			queue.schedule("t", "x", Duration.ZERO);
		}
		request.stop();
		AtomicInteger attempts = new AtomicInteger();
		try (TaskConsumer worker = queue.consume(delivery -> {
			if (attempts.incrementAndGet() == 1) {
				throw new IllegalStateException("first try fails");
			}
		}, TWO_ATTEMPTS)) {
			Eventually.await("two runs", () -> stopped(producer, "warden.task.run") == 2);
		}

		String trace = (String) request.getContext().get(TraceHandler.TRACE);
		producer.assertThat().hasHandledContextsThatSatisfy(contexts -> {
			List<Observation.Context> runs = contexts.stream().filter(c -> "warden.task.run".equals(c.getName())).toList();
			assertThat(runs).extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
				.containsExactly("failed", "completed");
			assertThat(runs.get(0).getError()).hasMessage("first try fails");
			assertThat(runs).allSatisfy(run -> assertThat((String) run.get(TraceHandler.TRACE)).isEqualTo(trace));
		});
	}

	@Test
	void withoutARegistryNothingIsStoredWithTheTask() throws Exception {
		Warden warden = clients.open(redis.node());
		warden.getDelayedQueue("plain", String.class).schedule("t", "x", Duration.ofHours(1));

		assertThat(redis.node().call("HKEYS", "warden:task:{plain}:meta")).asList().isEmpty();
	}

	@Test
	void anAnnotatedLockWaitIsAnObservationAndTheApplicationsRegistryReachesTasks() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		WardenApplications.runner(redis.node())
			.withBean(ObservationRegistry.class, () -> registry)
			.withUserConfiguration(Locked.class)
			.run(context -> {
				context.getBean(Stock.class).reserve("sku-1");
				context.getBean(Warden.class).getDelayedQueue("spring", String.class).schedule("s", "x",
						Duration.ofHours(1));

				registry.assertThat().hasObservationWithNameEqualTo("warden.lock.wait").that()
					.hasContextualNameEqualTo("lock stock")
					.hasLowCardinalityKeyValue("name", "stock")
					.hasLowCardinalityKeyValue("kind", "reentrant")
					.hasLowCardinalityKeyValue("outcome", "acquired")
					.hasBeenStopped();
				registry.assertThat().hasObservationWithNameEqualTo("warden.task.schedule");
			});
		WardenApplications.runner(redis.node())
			.withBean(ObservationRegistry.class, () -> registry)
			.withUserConfiguration(Locked.class)
			.withPropertyValues("warden.observations.enabled=false")
			.run(context -> {
				registry.clear();
				context.getBean(Stock.class).reserve("sku-2");
				registry.assertThat().doesNotHaveAnyObservation();
			});
	}

	private static long stopped(TestObservationRegistry registry, String name) {
		AtomicInteger count = new AtomicInteger();
		registry.assertThat().hasHandledContextsThatSatisfy(contexts -> count.set((int) contexts.stream()
			.filter(context -> name.equals(context.getName()) && context.containsKey(TraceHandler.STOPPED))
			.count()));
		return count.get();
	}

	private static TestObservationRegistry traced() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		registry.observationConfig().observationHandler(new TraceHandler());
		return registry;
	}

	/** What a tracer's propagation does, with one made-up header. */
	static final class TraceHandler implements ObservationHandler<Observation.Context> {

		static final String TRACE = "test.trace";

		static final String STOPPED = "test.stopped";

		private static final String HEADER = "x-test-trace";

		private static final AtomicInteger traces = new AtomicInteger();

		@Override
		@SuppressWarnings("unchecked")
		public void onStart(Observation.Context context) {
			String trace = null;
			if (context instanceof ReceiverContext<?> receiver) {
				trace = ((ReceiverContext<Map<String, String>>) receiver).getGetter()
					.get((Map<String, String>) receiver.getCarrier(), HEADER);
			}
			else if (context.getParentObservation() != null) {
				trace = (String) context.getParentObservation().getContextView().get(TRACE);
			}
			if (trace == null) {
				trace = "trace-" + traces.incrementAndGet();
			}
			context.put(TRACE, trace);
			if (context instanceof SenderContext<?> sender) {
				((SenderContext<Map<String, String>>) sender).getSetter()
					.set((Map<String, String>) sender.getCarrier(), HEADER, trace);
			}
		}

		@Override
		public void onStop(Observation.Context context) {
			context.put(STOPPED, true);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Locked {

		@Bean
		Stock stock() {
			return new Stock();
		}

	}

	static class Stock {

		@DistributedLock(name = "stock", key = "#sku")
		public void reserve(String sku) {
		}

	}

}
