package dev.warden.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.TaskLimit;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code warden} Actuator endpoint and health indicator over HTTP, in a running web
 * application on a real Redis, with a second, independent client scheduling to queues this
 * application does not consume.
 */
@ExtendWith(OutputCaptureExtension.class)
class WardenActuatorTests {

	private static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMinutes(1));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static final JsonMapper json = JsonMapper.builder().build();

	/** How long a health request may take: it must never wait on Redis. */
	private static final Duration PROMPT = Duration.ofSeconds(2);

	private final HttpClient http = HttpClient.newHttpClient();

	private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@AfterEach
	void stop() {
		applications.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void theOverviewShowsTheClientTheLocksHeldHereAndEveryQueueInRedis() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		DelayedQueue<String> elsewhere = clients.open(redis.node()).getDelayedQueue("billing", String.class);
		elsewhere.schedule("invoice-1", "x", Duration.ofHours(1));
		elsewhere.schedule("invoice-2", "x", Duration.ofHours(2));
		killTask(clients.open(redis.node()).getDelayedQueue("emails", String.class), "mail-1");
		Stock stock = app.getBean(Stock.class);
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> stock.reserve("sku-1", holding, release));
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		try {
			JsonNode overview = get(app, "/actuator/warden", 200);

			assertThat(overview.get("clientId").asString()).isEqualTo(app.getBean(Warden.class).getClientId());
			assertThat(overview.get("topology").asString()).contains(Integer.toString(redis.node().port()));
			assertThat(overview.get("writeOperations").asBoolean()).isFalse();
			JsonNode lock = overview.get("locks").get(0);
			assertThat(lock.get("names").get(0).asString()).isEqualTo("warden:lock:stock:sku-1");
			assertThat(lock.get("kind").asString()).isEqualTo("reentrant");
			assertThat(lock.get("method").asString()).contains("reserve");
			assertThat(lock.get("leaseLeftMillis").asLong()).as("a watchdog lease").isPositive();
			JsonNode billing = queue(overview, "billing");
			assertThat(billing.get("pending").asLong()).isEqualTo(2);
			assertThat(billing.get("inFlight").asLong()).isZero();
			assertThat(billing.get("deadLetters").asLong()).isZero();
			assertThat(billing.get("nextDueAt").asString()).isNotBlank();
			assertThat(billing.get("consumedHere").asBoolean()).isFalse();
			assertThat(billing.get("limits").isNull()).isTrue();
			assertThat(queue(overview, "emails").get("deadLetters").asLong()).isEqualTo(1);
			JsonNode reports = queue(overview, "reports");
			assertThat(reports.get("consumedHere").asBoolean()).isTrue();
			assertThat(reports.get("deferred").asLong()).isZero();
			assertThat(reports.get("limits").asString()).isEqualTo("2 at once per key");
		}
		finally {
			release.countDown();
			holder.get(10, TimeUnit.SECONDS);
		}
		assertThat(get(app, "/actuator/warden", 200).get("locks")).isEmpty();
	}

	@Test
	void theOverviewShowsTheWardenInstancesOnThisRedis() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		String here = app.getBean(Warden.class).getClientId();
		String elsewhere = clients.open(redis.node()).getClientId();

		JsonNode overview = get(app, "/actuator/warden", 200);

		List<JsonNode> fleet = overview.get("fleet").valueStream().toList();
		assertThat(fleet).extracting(instance -> instance.get("clientId").asString())
			.containsExactlyInAnyOrder(here, elsewhere);
		JsonNode self = fleet.stream().filter(instance -> instance.get("here").asBoolean()).findFirst().orElseThrow();
		assertThat(self.get("clientId").asString()).isEqualTo(here);
		assertThat(self.get("version").asString()).matches("\\d+\\.\\d+\\.\\d+.*");
		assertThat(self.get("reads").get("tasks").asInt()).isEqualTo(2);
		assertThat(self.get("writes").get("limiters").asInt()).isEqualTo(1);
		assertThat(java.time.Instant.parse(self.get("expiresAt").asString()))
			.isAfter(java.time.Instant.parse(self.get("startedAt").asString()));
		assertThat(overview.get("writeFormats").get("tasks").asInt()).isEqualTo(2);
		assertThat(overview.get("writeFormats").get("limiters").asInt()).isEqualTo(1);
	}

	@Test
	void theOverviewListsTheRateLimitsWithTheirStateInRedis() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		Exports exports = app.getBean(Exports.class);
		exports.export("acme");
		exports.export("globex");
		exports.digest();

		JsonNode limits = get(app, "/actuator/warden", 200).get("rateLimits");

		assertThat(limits).hasSize(2);
		JsonNode digest = limits.get(0);
		assertThat(digest.get("name").asString()).isEqualTo("digests");
		assertThat(digest.get("keyed").asBoolean()).isFalse();
		assertThat(digest.get("available").asLong()).as("3 at once, one taken").isEqualTo(2);
		JsonNode export = limits.get(1);
		assertThat(export.get("name").asString()).isEqualTo("exports");
		assertThat(export.get("permits").asLong()).isEqualTo(5);
		assertThat(export.get("period").asString()).isEqualTo("PT1M");
		assertThat(export.get("burst").asLong()).isEqualTo(5);
		assertThat(export.get("keysInUse").asLong()).as("acme's and globex's").isEqualTo(2);
		assertThat(export.get("methods").get(0).asString()).contains("Exports.export");
	}

	@Test
	void overviewsInARowCountTheKeyedRateLimitsInUseOnceNotAScanEach() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		app.getBean(Exports.class).export("acme");
		long started = System.nanoTime();
		assertThat(get(app, "/actuator/warden", 200).get("rateLimits").get(1).get("keysInUse").asLong()).isEqualTo(1);
		long scansBefore = scans();

		for (int i = 0; i < 5; i++) {
			get(app, "/actuator/warden", 200);
		}

		long scans = scans() - scansBefore;
		// On a slow machine a period may run out: then one sweep of the limiter (and one of the queue
		// names) per period gone by, never one per overview.
		long periods = (System.nanoTime() - started) / WardenAdmin.LIMITER_COUNTS_REUSED_NANOS;
		assertThat(scans).as("SCAN calls of 5 overviews in %d period(s) of reuse", periods + 1)
			.isLessThanOrEqualTo(2 * periods);
	}

	/** SCAN calls Redis has executed. */
	private static long scans() {
		String stats = (String) redis.node().call("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_scan:")) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

	@Test
	void aQueueIsReadAPageAtATimeWithAttemptsAndErrors() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("orders", String.class);
		for (int i = 0; i < 5; i++) {
			queue.schedule("order-" + i, "{\"n\":" + i + "}", Duration.ofMinutes(10 + i));
		}
		killTask(queue, "broken");

		JsonNode first = get(app, "/actuator/warden/queues/orders?offset=0&limit=2", 200);
		JsonNode second = get(app, "/actuator/warden/queues/orders?offset=2&limit=2", 200);

		assertThat(first.get("queue").get("pending").asLong()).isEqualTo(5);
		assertThat(ids(first.get("pending"))).containsExactly("order-0", "order-1");
		assertThat(ids(second.get("pending"))).containsExactly("order-2", "order-3");
		assertThat(first.get("pending").get(0).get("attempts").asInt()).isZero();
		assertThat(first.get("pending").get(0).get("payload").asString()).contains("n");
		JsonNode letter = first.get("deadLetters").get(0);
		assertThat(letter.get("id").asString()).isEqualTo("broken");
		assertThat(letter.get("attempts").asInt()).isEqualTo(1);
		assertThat(letter.get("error").asString()).contains("out of paper");
		assertThat(second.get("deadLetters")).isEmpty();
		assertThat(get(app, "/actuator/warden/queues/orders?limit=5000", 400).get("message").asString())
			.contains("limit from 1 to 1000");
		get(app, "/actuator/warden/other/orders", 404);
	}

	@Test
	void aPageOfAQueueCarriesPayloadExcerptsAndOneTaskCarriesItsWholePayload() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("uploads", String.class);
		// 256 KB each, of two-byte characters, so that a cut at a byte count may fall within one.
		String large = "\u00e9".repeat(128 * 1024);
		for (int i = 0; i < 20; i++) {
			queue.schedule("upload-" + i, i + large, Duration.ofMinutes(10 + i));
		}
		killTask(queue, "rejected", "r" + large);

		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(app, "/actuator/warden/queues/uploads?limit=50"))
			.timeout(Duration.ofSeconds(20))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode page = json.readTree(response.body());

		assertThat(response.body().length()).as("21 payloads of 256 KB, shown by their first bytes")
			.isLessThan(64 * 1024);
		assertThat(ids(page.get("pending"))).hasSize(20);
		List<JsonNode> shown = new ArrayList<>();
		page.get("pending").forEach(shown::add);
		shown.add(page.get("deadLetters").get(0));
		for (JsonNode task : shown) {
			String excerpt = task.get("payload").asString();
			assertThat(excerpt.getBytes(StandardCharsets.UTF_8).length).isBetween(200, 256);
			assertThat(excerpt).doesNotContain("\uFFFD");
			assertThat(task.get("payloadSize").asLong()).isGreaterThan(256 * 1024);
			assertThat(task.get("payloadComplete").asBoolean()).isFalse();
		}

		JsonNode one = get(app, "/actuator/warden/queues/uploads/upload-3", 200).get("pending");
		String whole = one.get("payload").asString();
		assertThat(whole).isEqualTo("\"3" + large + "\"");
		assertThat(one.get("payloadSize").asLong()).isEqualTo(whole.getBytes(StandardCharsets.UTF_8).length);
		assertThat(one.get("payloadComplete").asBoolean()).isTrue();
		assertThat(whole).startsWith(page.get("pending").get(3).get("payload").asString());
		JsonNode dead = get(app, "/actuator/warden/queues/uploads/rejected", 200);
		assertThat(dead.get("pending").isNull()).isTrue();
		assertThat(dead.get("deadLetter").get("payload").asString()).isEqualTo("\"r" + large + "\"");
		assertThat(dead.get("deadLetter").get("error").asString()).contains("out of paper");
		assertThat(get(app, "/actuator/warden/queues/uploads/none", 404).get("message").asString()).contains("none");
	}

	/** The shape an earlier version scheduled: the invoice number was text. */
	public record OldInvoice(String number) {
	}

	/** The shape this version reads: the number became a long. */
	public record Invoice(long number) {
	}

	@Test
	void thePayloadsOfAConsumedQueueAreCheckedOnDemandAgainstTheClassesDeployedNow() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port());
		Warden warden = app.getBean(Warden.class);
		try (TaskConsumer consumer = warden.getDelayedQueue("invoices", Invoice.class).consume(delivery -> {
		})) {
			DelayedQueue<OldInvoice> previous = clients.open(redis.node()).getDelayedQueue("invoices", OldInvoice.class);
			previous.schedule("i-1", new OldInvoice("A-17"), Duration.ofMinutes(30));
			previous.schedule("i-2", new OldInvoice("42"), Duration.ofMinutes(31));

			JsonNode check = get(app, "/actuator/warden/payloads/invoices", 200);

			assertThat(check.get("queue").asString()).isEqualTo("invoices");
			assertThat(check.get("pendingSampled").asInt()).isEqualTo(2);
			assertThat(check.get("pendingUnreadable").valueStream().map(JsonNode::asString)).containsExactly("i-1");
			assertThat(check.get("reason").asString()).contains("A-17");
			assertThat(check.get("deadLettersSampled").asInt()).isZero();
			assertThat(check.get("budgetReached").asBoolean()).as("stopped at its byte budget").isFalse();
			assertThat(get(app, "/actuator/warden/payloads/not-consumed-here", 404).get("message").asString())
				.contains("does not consume queue 'not-consumed-here'");
		}
	}

	@Test
	void writeOperationsAreRefusedUntilSwitchedOnAndThenChangeTheQueue() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("orders", String.class);
		killTask(queue, "a");
		killTask(queue, "b");
		killTask(queue, "c");
		queue.schedule("pending", "x", Duration.ofHours(1));
		ConfigurableApplicationContext readOnly = start(redis.node().host(), redis.node().port());

		JsonNode refused = post(readOnly, "/actuator/warden/queues/orders", "{\"action\":\"redrive\"}", 403);

		assertThat(refused.get("message").asString()).contains("warden.endpoint.write-operations=true");
		assertThat(queue.deadLetterCount()).isEqualTo(3);
		readOnly.close();

		// On, writes change only the queues this application consumes: not another application's.
		ConfigurableApplicationContext consumedOnly = start(redis.node().host(), redis.node().port(),
				"--warden.endpoint.write-operations=true");
		assertThat(post(consumedOnly, "/actuator/warden/queues/orders", "{\"action\":\"purge\"}", 403).get("message")
			.asString()).contains("not consumed by this application", "warden.endpoint.write-scope=all-queues");
		assertThat(queue.deadLetterCount()).isEqualTo(3);
		assertThat(queue(get(consumedOnly, "/actuator/warden", 200), "orders").get("writable").asBoolean()).isFalse();
		assertThat(queue(get(consumedOnly, "/actuator/warden", 200), "reports").get("writable").asBoolean()).isTrue();
		assertThat(post(consumedOnly, "/actuator/warden/queues/reports", "{\"action\":\"purge\"}", 200).get("count")
			.asLong()).as("its own queue").isZero();
		consumedOnly.close();

		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port(),
				"--warden.endpoint.write-operations=true", "--warden.endpoint.write-scope=all-queues");
		assertThat(post(app, "/actuator/warden/queues/orders", "{\"action\":\"redrive\",\"taskId\":\"a\"}", 200)
			.get("count").asLong()).isEqualTo(1);
		assertThat(queue.contains("a")).isTrue();
		assertThat(post(app, "/actuator/warden/queues/orders", "{\"action\":\"purge\",\"taskId\":\"b\"}", 200)
			.get("count").asLong()).isEqualTo(1);
		assertThat(post(app, "/actuator/warden/queues/orders", "{\"action\":\"redrive\"}", 200).get("count").asLong())
			.as("all that is left").isEqualTo(1);
		assertThat(queue.contains("c")).isTrue();
		assertThat(queue.deadLetterCount()).isZero();
		assertThat(post(app, "/actuator/warden/queues/orders", "{\"action\":\"cancel\",\"taskId\":\"pending\"}", 200)
			.get("count").asLong()).isEqualTo(1);
		assertThat(queue.contains("pending")).isFalse();
		assertThat(post(app, "/actuator/warden/queues/orders", "{\"action\":\"explode\"}", 400).get("message")
			.asString()).contains("redrive, purge or cancel");
		assertThat(post(app, "/actuator/warden/queues/orders",
				"{\"action\":\"redrive\",\"failedFrom\":\"yesterday\"}", 400).get("message").asString())
			.contains("ISO-8601");
	}

	@Test
	void aQueueNameWithAControlCharacterIsA400AndWritesNoLine(CapturedOutput output) throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("payments", String.class);
		killTask(queue, "a");
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port(),
				"--warden.endpoint.write-operations=true", "--warden.endpoint.write-scope=all-queues");
		// Decoded: payments'<LF>Operator purged 99 dead letter(s) of queue 'payments
		String forged = "payments'%0aOperator%20purged%2099%20dead%20letter(s)%20of%20queue%20'payments";

		JsonNode refused = post(app, "/actuator/warden/queues/" + forged, "{\"action\":\"purge\"}", 400);

		assertThat(refused.get("message").asString()).contains("must not contain control characters", "\\n")
			.doesNotContain("\n");
		for (String read : List.of("/actuator/warden/queues/", "/actuator/warden/payloads/")) {
			assertThat(get(app, read + forged, 400).get("message").asString()).contains("control characters");
		}
		assertThat(post(app, "/actuator/warden/queues/payments", "{\"action\":\"purge\"}", 200).get("count")
			.asLong()).isEqualTo(1);
		assertThat(output.getOut().lines().filter(line -> line.contains("Operator purged")))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("Operator purged 1 dead letter(s) of queue 'payments'");
		assertThat(output.getOut()).doesNotContain("Operator purged 99", "Operator re-drove");
	}

	@Test
	void healthIsUpWhenRedisAnswersAndDownWithTheReasonWhenItDoesNotAnsweringAtOnceEitherWay() throws Exception {
		try (TcpProxy proxy = TcpProxy.start(redis.node())) {
			ConfigurableApplicationContext app = start(proxy.host(), proxy.port(), "--warden.command-timeout=10s",
					"--warden.health.check-interval=200ms", "--warden.health.timeout=300ms");
			JsonNode up = get(app, "/actuator/health/warden", 200);
			assertThat(up.get("status").asString()).isEqualTo("UP");
			assertThat(up.get("details").has("clientId")).as("the client id is the endpoint's, not the health's").isFalse();
			assertThat(up.get("details").get("pingMicros").asLong()).isPositive();

			// Redis silent: the connections stay open and nothing answers.
			proxy.blackhole();
			Eventually.await("DOWN", Duration.ofSeconds(30), () -> status(app, "/actuator/health/warden", PROMPT) == 503);
			JsonNode down = get(app, "/actuator/health/warden", 503, PROMPT);
			assertThat(down.get("status").asString()).isEqualTo("DOWN");
			assertThat(down.get("details").get("reason").asString()).contains("PING");
			// Every answer comes from what the background check knows, not from a wait on Redis.
			for (int i = 0; i < 5; i++) {
				assertThat(status(app, "/actuator/health/warden", PROMPT)).as("answered within " + PROMPT).isEqualTo(503);
			}

			proxy.heal();
			Eventually.await("UP again", Duration.ofSeconds(30), () -> status(app, "/actuator/health/warden", PROMPT) == 200);
		}
	}

	@Test
	void healthIsDownAtOnceWhenTheConnectionIsLost() throws Exception {
		// A check interval longer than the test: the loss is seen from the connection, not a check.
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port(),
				"--warden.health.check-interval=1h");
		assertThat(get(app, "/actuator/health/warden", 200).get("status").asString()).isEqualTo("UP");

		redis.node().stop();
		Eventually.await("DOWN", Duration.ofSeconds(30), () -> status(app, "/actuator/health/warden", PROMPT) == 503);

		assertThat(get(app, "/actuator/health/warden", 503, PROMPT).get("details").get("reason").asString())
			.contains("connection to Redis is lost");
	}

	@Test
	void nearMaxmemoryHealthReportsItsMemoryStatusAndTheGaugeTheUsage() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port(),
				"--warden.health.check-interval=100ms", "--management.endpoint.health.status.order=DOWN,DEGRADED,UP");
		JsonNode up = get(app, "/actuator/health/warden", 200);
		assertThat(up.get("status").asString()).isEqualTo("UP");
		assertThat(up.get("details").get("maxmemoryPolicy").asString()).isEqualTo("noeviction");
		try {
			Eventually.await("DEGRADED", () -> {
				// Redis uses about 97 % of its limit: set again each time, as used_memory moves a little.
				String info = (String) redis.node().call("INFO", "memory");
				long used = Long.parseLong(info.replaceAll("(?s).*\\bused_memory:(\\d+).*", "$1"));
				redis.node().call("CONFIG", "SET", "maxmemory", Long.toString(used * 100 / 97));
				try {
					return get(app, "/actuator/health/warden", 200).get("status").asString().equals("DEGRADED");
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			JsonNode degraded = get(app, "/actuator/health/warden", 200);
			assertThat(degraded.get("details").get("maxmemory").asLong()).isPositive();
			assertThat(degraded.get("details").get("usedMemory").asLong()).isPositive();
			assertThat(app.getBean(MeterRegistry.class).get("warden.redis.memory.usage").gauge().value())
				.as("the share of maxmemory in use").isGreaterThan(0.5);
		}
		finally {
			redis.node().call("CONFIG", "SET", "maxmemory", "0");
		}
	}

	@Test
	void deadLettersOfAQueueConsumedHereCanReportAStatusOfTheirOwn() throws Exception {
		ConfigurableApplicationContext app = start(redis.node().host(), redis.node().port(),
				"--warden.health.dead-letter-status=DEGRADED", "--warden.health.check-interval=100ms",
				"--management.endpoint.health.status.order=DOWN,DEGRADED,UP",
				"--management.endpoint.health.status.http-mapping.DEGRADED=200");
		Warden warden = app.getBean(Warden.class);
		DelayedQueue<String> queue = warden.getDelayedQueue("jobs", String.class);
		try (TaskConsumer consumer = queue.consume(delivery -> {
			throw new IllegalStateException("disk full");
		}, ONE_ATTEMPT)) {
			assertThat(get(app, "/actuator/health/warden", 200).get("status").asString()).isEqualTo("UP");
			queue.schedule("j", "x", Duration.ZERO);
			Eventually.await("the task died", () -> queue.deadLetterCount() == 1);

			Eventually.await("the next check", () -> {
				try {
					return get(app, "/actuator/health/warden", 200).get("status").asString().equals("DEGRADED");
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			JsonNode degraded = get(app, "/actuator/health/warden", 200);

			assertThat(degraded.get("status").asString()).isEqualTo("DEGRADED");
			assertThat(degraded.get("details").get("deadLetters").get("jobs").asLong()).isEqualTo(1);
		}
	}

	private ConfigurableApplicationContext start(String host, int port, String... more) {
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.host=" + host,
				"--spring.data.redis.port=" + port, "--management.endpoints.web.exposure.include=warden,health",
				"--management.endpoint.health.show-details=always", "--spring.datasource.url=jdbc:h2:mem:actuator"));
		args.addAll(List.of(more));
		ConfigurableApplicationContext app = new SpringApplicationBuilder(Application.class)
			.run(args.toArray(String[]::new));
		applications.add(app);
		return app;
	}

	private static void killTask(DelayedQueue<String> queue, String id) throws Exception {
		killTask(queue, id, "x");
	}

	private static void killTask(DelayedQueue<String> queue, String id, String payload) throws Exception {
		queue.schedule(id, payload, Duration.ZERO);
		try (TaskConsumer consumer = queue.consume(delivery -> {
			throw new IllegalStateException("out of paper");
		}, ONE_ATTEMPT)) {
			Eventually.await("task " + id + " died", () -> queue.deadLetters(0, 1000).stream()
				.anyMatch(letter -> letter.id().equals(id)));
		}
	}

	private static JsonNode queue(JsonNode overview, String name) {
		for (JsonNode queue : overview.get("queues")) {
			if (queue.get("name").asString().equals(name)) {
				return queue;
			}
		}
		throw new AssertionError("No queue " + name + " in " + overview);
	}

	private static List<String> ids(JsonNode tasks) {
		List<String> ids = new ArrayList<>();
		tasks.forEach(task -> ids.add(task.get("id").asString()));
		return ids;
	}

	private JsonNode get(ConfigurableApplicationContext app, String path, int status) throws Exception {
		return get(app, path, status, Duration.ofSeconds(20));
	}

	private JsonNode get(ConfigurableApplicationContext app, String path, int status, Duration timeout) throws Exception {
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(app, path)).timeout(timeout)
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(status);
		return response.body().isEmpty() ? json.createObjectNode() : json.readTree(response.body());
	}

	private int status(ConfigurableApplicationContext app, String path) {
		return status(app, path, Duration.ofSeconds(20));
	}

	/** The status of a GET, or -1 when it failed or was not answered within {@code timeout}. */
	private int status(ConfigurableApplicationContext app, String path, Duration timeout) {
		try {
			return http.send(HttpRequest.newBuilder(uri(app, path)).timeout(timeout).build(),
					HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (java.io.IOException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	private JsonNode post(ConfigurableApplicationContext app, String path, String body, int status) throws Exception {
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(app, path))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			// As the dashboard's own requests are sent (the Actuator endpoint ignores it).
			.header("X-Warden-Request", "1")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + " " + body + ": " + response.body()).isEqualTo(status);
		return json.readTree(response.body());
	}

	private static URI uri(ConfigurableApplicationContext app, String path) {
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		return URI.create("http://localhost:" + port + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Stock stock() {
			return new Stock();
		}

		@Bean
		Exports exports() {
			return new Exports();
		}

	}

	static class Exports {

		@RateLimited(name = "exports", key = "#customer", permits = "5", period = "1m")
		public void export(String customer) {
		}

		@RateLimited(name = "digests", permits = "1", period = "1h", burst = "3")
		public void digest() {
		}

		@DelayedTask(queue = "reports", delay = "1h", limit = @TaskLimit(key = "#customer", concurrency = "2"))
		public void report(String customer) {
		}

	}

	static class Stock {

		@DistributedLock(name = "stock", key = "#sku")
		public void reserve(String sku, CountDownLatch holding, CountDownLatch release) {
			holding.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
