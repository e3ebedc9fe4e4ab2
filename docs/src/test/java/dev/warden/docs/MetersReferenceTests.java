package dev.warden.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.warden.Warden;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.LockType;
import dev.warden.lock.annotation.OnLockFailure;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.ratelimit.RateLimitExceededException;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.task.annotation.TaskLimit;
import dev.warden.test.redis.RedisServerExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static dev.warden.docs.GeneratedPage.cell;
import static dev.warden.docs.GeneratedPage.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code docs/meters.md}: every meter Warden registers, generated from the meters an application
 * actually has: it starts one (Spring Boot with Actuator, a {@link SimpleMeterRegistry}, a real
 * {@code redis-server}), runs each feature that registers meters (a lock taken and one timed out, a
 * delayed queue with a task that completes and one that fails to its dead letter, a recurring task,
 * a rate limit permitting and limiting, a task limit deferring, the fleet and the health check), and
 * lists the registry's {@code warden.*} meters. A meter name written in Warden's sources (a
 * {@code *.builder("...")}, a {@code counter("...")}, an observation's name) that the run did not
 * register fails the test, so that a meter nobody exercised cannot go missing from the page.
 */
class MetersReferenceTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final GeneratedPage page = new GeneratedPage("meters.md", "MetersReferenceTests");

	/** Tags whose values are a fixed set, written on the page; the others' values are names. */
	private static final Set<String> FIXED_TAGS = Set.of("outcome", "reason", "kind");

	/** Where meter names are written in the sources: builders, registry and helper calls. */
	private static final Pattern METER_NAME = Pattern.compile(
			"\\b(?:Counter|Timer|Gauge|DistributionSummary|LongTaskTimer|FunctionCounter|FunctionTimer|TimeGauge)"
					+ "\\.builder\\(\\s*\"([^\"]+)\"|\\b(?:counter|timer|gauge|summary)\\(\\s*\"(warden\\.[^\"]+)\"");

	/** Observations, which Micrometer's default handler turns into a timer and a long task timer. */
	private static final Pattern OBSERVATION_NAME = Pattern.compile("Observation\\.createNotStarted\\(\\s*\"([^\"]+)\"");

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void metersPageListsEveryMeterWardenRegisters() throws Exception {
		Map<String, MeterInfo> meters;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=" + redis.node().host(), "spring.data.redis.port=" + redis.node().port(),
					"warden.metrics.queue-refresh-interval=0s", "spring.main.banner-mode=off")
			.run()) {
			exercise(context);
			meters = meters(context.getBean(MeterRegistry.class));
		}
		Set<String> observations = sourceNames(OBSERVATION_NAME);
		Set<String> written = sourceNames(METER_NAME);
		assertThat(written).as("the meter names found in the sources").contains("warden.task.completed",
				"warden.task.scheduled", "warden.redis.memory.usage");
		assertThat(observations).as("the observation names found in the sources").contains("warden.task.run");
		Set<String> missing = new TreeSet<>(written);
		missing.addAll(observations);
		missing.removeAll(meters.keySet());
		assertThat(missing).as("meter names in Warden's sources that the run of MetersReferenceTests did not register: "
				+ "exercise what registers them in MetersReferenceTests.exercise").isEmpty();
		String rendered = render(meters, observations);
		written.addAll(observations);
		assertThat(written).as("meter names in Warden's sources missing from the page")
			.allMatch(name -> rendered.contains("| `" + name + "` |"));
		page.check(rendered);
	}

	/** Runs every feature that registers meters, and waits until each has. */
	private static void exercise(ConfigurableApplicationContext context) throws Exception {
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(registry).isInstanceOf(SimpleMeterRegistry.class);
		Warden warden = context.getBean(Warden.class);
		Stock stock = context.getBean(Stock.class);
		Reports reports = context.getBean(Reports.class);
		Exports exports = context.getBean(Exports.class);

		// A lock taken, and one that another call holds: the wait times out.
		ExecutorService threads = Executors.newSingleThreadExecutor();
		try {
			Future<String> holder = threads.submit(() -> stock.reserve("apple", true));
			assertThat(Stock.holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(stock.reserve("apple", false)).as("timed out: skipped").isNull();
			Stock.release.countDown();
			assertThat(holder.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("apple");
		}
		finally {
			threads.shutdownNow();
		}

		// A rate limit that permits the first call and limits the second.
		reports.render("r-1");
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> reports.render("r-2"));

		// A delayed queue: a task that completes, one that fails, is retried, and becomes a dead letter.
		DelayedQueue<String> orders = warden.getDelayedQueue("orders", String.class);
		orders.schedule("o-1", "ok", Duration.ZERO);
		orders.schedule("o-2", "fail", Duration.ZERO);
		try (TaskConsumer consumer = orders.consume(delivery -> {
			if ("fail".equals(delivery.payload())) {
				throw new IllegalStateException("out of stock");
			}
		}, new ConsumerOptions(2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofMinutes(1)))) {
			await("a completed task and a dead letter", () -> count(registry, "warden.task.completed", "orders") == 1
					&& count(registry, "warden.task.dead", "orders") == 1);
		}

		// A task limit of one at a time per tenant: the second task of the tenant is deferred.
		exports.export("acme", 1);
		exports.export("acme", 2);
		await("a deferred task", () -> count(registry, "warden.task.deferred", "exports") > 0);
		Exports.release.countDown();
		await("both exports ran", () -> count(registry, "warden.task.completed", "exports") == 2);

		// A recurring task: its first occurrence runs at startup.
		assertThat(Nightly.ran.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the recurring task ran").isTrue();

		// The gauges, read once: the queues', the fleet's, the memory the health check read.
		registry.getMeters().forEach(Meter::measure);
	}

	private static double count(MeterRegistry registry, String name, String queue) {
		return registry.find(name).tag("queue", queue).counters().stream().mapToDouble(counter -> counter.count()).sum();
	}

	/** Waits for a condition, at most {@link #WAIT}, checking it every 10 ms. */
	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			Thread.sleep(10);
		}
	}

	/** What the registry holds of each {@code warden.*} meter, by name. */
	static Map<String, MeterInfo> meters(MeterRegistry registry) {
		Map<String, MeterInfo> meters = new TreeMap<>();
		for (Meter meter : registry.getMeters()) {
			Meter.Id id = meter.getId();
			if (!id.getName().startsWith("warden.")) {
				continue;
			}
			MeterInfo info = meters.computeIfAbsent(id.getName(), name -> new MeterInfo(name, new TreeSet<>(),
					new TreeMap<>(), new LinkedHashSet<>(), new LinkedHashSet<>()));
			info.types().add(id.getType().name().toLowerCase(Locale.ROOT).replace('_', ' '));
			if (id.getDescription() != null) {
				info.descriptions().add(id.getDescription());
			}
			if (id.getBaseUnit() != null) {
				info.baseUnits().add(id.getBaseUnit());
			}
			for (Tag tag : id.getTags()) {
				info.tags().computeIfAbsent(tag.getKey(), key -> new TreeSet<>()).add(tag.getValue());
			}
		}
		return meters;
	}

	/** The names the sources of Warden's published modules give meters or observations. */
	static Set<String> sourceNames(Pattern pattern) throws IOException {
		Set<String> names = new TreeSet<>();
		Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
		for (String module : List.of("autoconfigure", "kotlin", "boot3")) {
			Path sources = root.resolve(module).resolve("src/main");
			if (!Files.isDirectory(sources)) {
				continue;
			}
			List<Path> files;
			try (Stream<Path> walk = Files.walk(sources)) {
				files = walk.filter(file -> file.toString().endsWith(".java") || file.toString().endsWith(".kt"))
					.sorted()
					.toList();
			}
			for (Path file : files) {
				for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
					if (line.contains("ObservationRegistry.NOOP")) {
						// Never recorded: a registry that keeps nothing.
						continue;
					}
					Matcher matcher = pattern.matcher(line);
					while (matcher.find()) {
						for (int group = 1; group <= matcher.groupCount(); group++) {
							if (matcher.group(group) != null) {
								names.add(matcher.group(group));
							}
						}
					}
				}
			}
		}
		return names;
	}

	static String render(Map<String, MeterInfo> meters, Set<String> observations) {
		StringBuilder out = new StringBuilder();
		out.append("# Meters\n\n");
		out.append(page.generatedBy("the meters an application with Warden registers")).append("\n\n");
		out.append("Warden registers these meters when the application has a `MeterRegistry` (Spring Boot's ")
			.append("Actuator gives it one) and `warden.metrics.enabled` is not `false`. A queue's meters appear ")
			.append("once the instance schedules to or consumes the queue, a lock's and a rate limit's at their ")
			.append("first call. Tag values are listed where they are a fixed set; `queue` is a queue's name, ")
			.append("`name` an annotation's name (never an evaluated key). Names are written as Micrometer names: ")
			.append("a registry renames them for its format (Prometheus: `warden_task_completed_total`, ")
			.append("timers in seconds).\n\n");
		table(out, meters, name -> !isObservation(name, observations));
		out.append("\n## Observation timers\n\n");
		out.append("Lock waits, task schedules and task runs are also observations (`warden.observations.enabled`). ")
			.append("Spring Boot's Actuator turns each observation into a timer of its name and a long task timer ")
			.append("named `<name>.active` (Micrometer's `DefaultMeterObservationHandler`), tagged with the ")
			.append("observation's low-cardinality values and `error`.\n\n");
		table(out, meters, name -> isObservation(name, observations));
		return out.toString();
	}

	private static boolean isObservation(String name, Set<String> observations) {
		return observations.contains(name) || (name.endsWith(".active")
				&& observations.contains(name.substring(0, name.length() - ".active".length())));
	}

	private static void table(StringBuilder out, Map<String, MeterInfo> meters,
			java.util.function.Predicate<String> included) {
		out.append("| Meter | Type | Tags | Base unit | Description |\n");
		out.append("|---|---|---|---|---|\n");
		meters.values().stream().filter(meter -> included.test(meter.name())).forEach(meter -> {
			String tags = meter.tags().entrySet().stream().map(tag -> {
				if (!FIXED_TAGS.contains(tag.getKey())) {
					return code(tag.getKey());
				}
				Set<String> values = new TreeSet<>(tag.getValue());
				values.addAll(knownValues(meter.name(), tag.getKey()));
				return code(tag.getKey()) + " (" + values.stream().map(GeneratedPage::code)
					.collect(Collectors.joining(", ")) + ")";
			}).collect(Collectors.joining(", "));
			String description = String.join(" ", meter.descriptions());
			if (description.isEmpty() && meter.name().endsWith(".active")) {
				description = "Observations of " + meter.name().substring(0, meter.name().length() - ".active".length())
						+ " running now, and for how long.";
			}
			else if (description.isEmpty()) {
				description = "Observations of " + meter.name() + " that ended, and how long they took.";
			}
			out.append("| ").append(code(meter.name()))
				.append(" | ").append(String.join(", ", meter.types()))
				.append(" | ").append(tags)
				.append(" | ").append(String.join(", ", meter.baseUnits()))
				.append(" | ").append(cell(description))
				.append(" |\n");
		});
	}

	/** The values a fixed-set tag takes that the run may not have met, from the code that writes them. */
	private static Set<String> knownValues(String meter, String tag) {
		Set<String> values = new TreeSet<>();
		if (tag.equals("kind")) {
			for (LockType type : LockType.values()) {
				values.add(type.tag());
			}
		}
		if (tag.equals("outcome") && meter.startsWith("warden.lock.")) {
			for (LockCalls.Outcome outcome : LockCalls.Outcome.values()) {
				values.add(outcome.tag());
			}
		}
		return values;
	}

	/** One meter name: its types, tags and their values, descriptions and base units, as registered. */
	record MeterInfo(String name, Set<String> types, Map<String, Set<String>> tags, Set<String> descriptions,
			Set<String> baseUnits) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Stock stock() {
			return new Stock();
		}

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		Exports exports() {
			return new Exports();
		}

		@Bean
		Nightly nightly() {
			return new Nightly();
		}

	}

	static class Stock {

		// Static: the bean is a proxy, whose own fields are not the target's.
		static final CountDownLatch holding = new CountDownLatch(1);

		static final CountDownLatch release = new CountDownLatch(1);

		@DistributedLock(name = "stock", key = "#sku", waitTime = 0, onFailure = OnLockFailure.SKIP)
		public String reserve(String sku, boolean hold) throws InterruptedException {
			if (hold) {
				holding.countDown();
				release.await(30, TimeUnit.SECONDS);
			}
			return sku;
		}

	}

	static class Reports {

		@RateLimited(name = "reports", permits = "1", period = "1h")
		public String render(String id) {
			return id;
		}

	}

	static class Exports {

		static final CountDownLatch release = new CountDownLatch(1);

		@DelayedTask(queue = "exports", delay = "0s", limit = @TaskLimit(key = "#tenant", concurrency = "1"))
		public void export(String tenant, int n) throws InterruptedException {
			release.await(30, TimeUnit.SECONDS);
		}

	}

	static class Nightly {

		static final CountDownLatch ran = new CountDownLatch(1);

		@RecurringTask(name = "nightly", fixedRate = "1h")
		public void run() {
			ran.countDown();
		}

	}

}
