package dev.warden.task.annotation;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenMetricsAutoConfiguration;
import dev.warden.test.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.warden.StartupFailures.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskLimit} on {@link DelayedTask} methods: the key from the method's parameters, the
 * numbers from the annotation or the queue's properties, and startup failures naming the method
 * or the property.
 */
class TaskLimitAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.delayed-task.shutdown-grace=5s");

	@Test
	void theKeyComesFromTheArgumentsAndTheLimitFromTheQueueProperties() {
		runner.withUserConfiguration(Exports.class)
			.withConfiguration(AutoConfigurations.of(WardenMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("warden.delayed-task.queues.exports.limit.concurrency=1")
			.run(context -> {
				ExportService service = context.getBean(ExportService.class);
				Recorder recorder = context.getBean(Recorder.class);
				for (int i = 0; i < 5; i++) {
					service.export("acme", i);
				}
				service.export("initech", 0);
				service.export("initech", 1);
				Eventually.await("all 7 exports to run", () -> recorder.finished.size() == 7);
				assertThat(recorder.most).containsOnly(Map.entry("acme", 1), Map.entry("initech", 1));
				// Five exports of one tenant due at once, one at a time: some were deferred, and counted.
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("warden.task.deferred").tag("queue", "exports").tag("reason", "concurrency")
					.counter().count()).isPositive();
				assertThat(context.getBean(Warden.class).queueLimits("exports")).hasValueSatisfying(
						limits -> assertThat(limits).hasToString("1 at once per key"));
			});
	}

	@Test
	void theAnnotationsOwnNumbersApplyWithPlaceholders() {
		runner.withUserConfiguration(Reports.class).withPropertyValues("reports.per-customer=2").run(context -> {
			ReportService service = context.getBean(ReportService.class);
			Recorder recorder = context.getBean(Recorder.class);
			for (int i = 0; i < 8; i++) {
				service.report(new Customer("c-1"), i);
			}
			Eventually.await("all 8 reports to run", () -> recorder.finished.size() == 8);
			assertThat(recorder.most).containsOnly(Map.entry("c-1", 2));
		});
	}

	@Test
	void invalidLimitsFailStartupNamingTheMethodOrTheProperty() {
		runner.withUserConfiguration(Exports.class).run(context -> assertStartupFailure(context,
				"ExportService.export(String, int)", "has a limit key but no limit",
				"warden.delayed-task.queues.exports.limit.*"));
		runner.withUserConfiguration(Exports.class)
			.withPropertyValues("warden.delayed-task.queues.exports.limit.concurrency=0")
			.run(context -> assertStartupFailure(context, "warden.delayed-task.queues.exports", "limit.concurrency"));
		runner.withUserConfiguration(Reports.class).withPropertyValues("reports.per-customer=two")
			.run(context -> assertStartupFailure(context, "ReportService.report(Customer, int)", "limit.concurrency 'two'"));
		runner.withUserConfiguration(Reports.class).withPropertyValues("reports.per-customer=0")
			.run(context -> assertStartupFailure(context, "ReportService.report(Customer, int)", "limit.concurrency 0"));
		runner.withUserConfiguration(BadKey.class).run(context -> assertStartupFailure(context,
				"BadKeyService.run(String)", "#tenantID"));
	}

	record Customer(String id) {
	}

	/** What the handlers saw: the most tasks of a key running at once, and the keys of those that ran. */
	static class Recorder {

		final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

		final Map<String, Integer> most = new ConcurrentHashMap<>();

		final List<String> finished = new CopyOnWriteArrayList<>();

		void run(String key) throws InterruptedException {
			int now = running.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
			most.merge(key, now, Math::max);
			// A little work, so that tasks of a key overlap when the limit lets them.
			TimeUnit.MILLISECONDS.sleep(20);
			running.get(key).decrementAndGet();
			finished.add(key);
		}

	}

	public static class ExportService {

		private final Recorder recorder;

		ExportService(Recorder recorder) {
			this.recorder = recorder;
		}

		@DelayedTask(queue = "exports", delay = "0s", limit = @TaskLimit(key = "#tenant"))
		public void export(String tenant, int n) throws InterruptedException {
			recorder.run(tenant);
		}

	}

	public static class ReportService {

		private final Recorder recorder;

		ReportService(Recorder recorder) {
			this.recorder = recorder;
		}

		@DelayedTask(queue = "reports", delay = "0s",
				limit = @TaskLimit(key = "#customer.id", concurrency = "${reports.per-customer}"))
		public void report(Customer customer, int n) throws InterruptedException {
			recorder.run(customer.id());
		}

	}

	public static class BadKeyService {

		@DelayedTask(delay = "0s", limit = @TaskLimit(key = "#tenantID", concurrency = "1"))
		public void run(String tenant) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Exports {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		ExportService exportService(Recorder recorder) {
			return new ExportService(recorder);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Reports {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		ReportService reportService(Recorder recorder) {
			return new ReportService(recorder);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKey {

		@Bean
		BadKeyService badKeyService() {
			return new BadKeyService();
		}

	}

}
