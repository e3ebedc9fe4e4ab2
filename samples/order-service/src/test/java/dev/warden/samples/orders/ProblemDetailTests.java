package dev.warden.samples.orders;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error of the sample's HTTP API is an RFC 9457 problem detail written for the caller: a
 * status, a type, a title and a detail, never an internal class or method name.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProblemDetailTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static ConfigurableApplicationContext service;

	@BeforeAll
	static void start() {
		service = new SpringApplicationBuilder(OrderServiceApplication.class, Quotes.class, QuoteController.class).run("--server.port=0",
				"--problem-detail-tests.quotes=true",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:problems;DB_CLOSE_DELAY=-1", "--warden.lock.default-wait-time=100ms",
				"--warden.command-timeout=1s");
		service.getBean(Inventory.class).setStock("apple", 10);
	}

	@AfterAll
	static void stop() {
		if (service != null) {
			service.close();
		}
	}

	@Test
	void anInvalidQuantityIsABadRequest() throws Exception {
		JsonNode problem = problem(purchase("{\"sku\":\"apple\",\"quantity\":0}"), 400);
		assertThat(problem.get("title").asString()).isEqualTo("Invalid order");
		assertThat(problem.get("detail").asString()).isEqualTo("quantity must be positive: 0");
		assertThat(problem.get("type").asString()).isEqualTo("https://orders.example/problems/invalid-order");
	}

	@Test
	void aMissingSkuIsABadRequestAndNeverReachesTheLock() throws Exception {
		JsonNode problem = problem(purchase("{\"quantity\":1}"), 400);
		assertThat(problem.get("detail").asString()).isEqualTo("sku is required");
	}

	@Test
	void aBodyThatIsNotJsonIsABadRequest() throws Exception {
		JsonNode problem = problem(purchase("{\"sku\":"), 400);
		assertThat(problem.get("detail").asString()).isEqualTo("Failed to read request");
	}

	@Test
	void anOrderIdThatIsNotANumberIsABadRequest() throws Exception {
		HttpResponse<String> response = http.send(
				HttpRequest.newBuilder(uri("/orders/abc")).GET().build(), HttpResponse.BodyHandlers.ofString());
		problem(response, 400);
	}

	@Test
	void anUnknownProductIsNotFound() throws Exception {
		JsonNode problem = problem(purchase("{\"sku\":\"durian\",\"quantity\":1}"), 404);
		assertThat(problem.get("title").asString()).isEqualTo("Unknown product");
		assertThat(problem.get("detail").asString()).isEqualTo("No product durian");
	}

	@Test
	void aProductBusyBeyondTheWaitIsServiceUnavailableWithRetryAfter() throws Exception {
		RedisClient client = RedisClient.create(RedisURI.create(redis.node().host(), redis.node().port()));
		try (Warden other = Warden.create(client)) {
			DistributedReentrantLock stock = other.getLock("orders:lock:stock:apple");
			LockOwner holder = other.newOwner();
			assertThat(stock.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
			HttpResponse<String> response = purchase("{\"sku\":\"apple\",\"quantity\":1}");
			stock.unlock(holder);

			JsonNode problem = problem(response, 503);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(problem.get("title").asString()).isEqualTo("Busy");
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void anUnexpectedFailureIsAnInternalErrorWhoseReferenceIsInTheLog(CapturedOutput output) throws Exception {
		// The lock key refuses braces: a failure the service does not expect, and must not explain.
		JsonNode problem = problem(purchase("{\"sku\":\"a{b}\",\"quantity\":1}"), 500);
		String reference = problem.get("reference").asString();
		assertThat(problem.get("detail").asString()).contains(reference);
		assertThat(output).contains("Answered 500, reference " + reference)
			.contains("java.lang.IllegalArgumentException: Lock key '#sku' of ").contains("evaluated to 'a{b}'");
	}

	@Test
	void aRefusedRateLimitedCallIsTooManyRequestsWithRetryAfterNotAnInternalError(CapturedOutput output)
			throws Exception {
		assertThat(quote("acme").statusCode()).isEqualTo(200);

		HttpResponse<String> refused = quote("acme");

		// OrderProblems answers every Exception; Warden's 429 comes first all the same.
		JsonNode problem = problem(refused, 429);
		assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
				seconds -> assertThat(seconds).isBetween(1L, 60L));
		assertThat(problem.get("title").asString()).isEqualTo("Too Many Requests");
		assertThat(output).doesNotContain("Answered 500");
	}

	@Test
	@Order(Integer.MAX_VALUE)
	void redisDownIsServiceUnavailableWithRetryAfter() throws Exception {
		// Last: the service's connections to Redis are gone once it stops.
		redis.node().stop();

		HttpResponse<String> response = purchase("{\"sku\":\"apple\",\"quantity\":1}");

		JsonNode problem = problem(response, 503);
		assertThat(response.headers().firstValue("Retry-After")).hasValue("5");
		assertThat(problem.get("title").asString()).isEqualTo("Temporarily unavailable");
	}

	private static HttpResponse<String> quote(String customer) throws Exception {
		return http.send(HttpRequest.newBuilder(uri("/quotes/" + customer)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static HttpResponse<String> purchase(String body) throws Exception {
		return http.send(HttpRequest.newBuilder(uri("/orders"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** The response's problem detail, checked for its status, media type and for nothing internal. */
	private static JsonNode problem(HttpResponse<String> response, int status) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.has("title")).isTrue();
		assertThat(problem.has("detail")).isTrue();
		assertThat(response.body()).as("nothing internal")
			.doesNotContain("dev.warden", "Exception", "java.", "OrderService", "#sku", "trace");
		return problem;
	}

	private static URI uri(String path) {
		return URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort() + path);
	}

	/** A keyed rate limit, one call a minute per customer. */
	static class Quotes {

		@RateLimited(name = "quotes", key = "#customer", permits = "1", period = "1m")
		public String quote(String customer) {
			return "quote for " + customer;
		}

	}

	/** The rate-limited endpoint, in this test's service only (the other tests scan this package too). */
	@RestController
	@ConditionalOnBooleanProperty("problem-detail-tests.quotes")
	static class QuoteController {

		private final Quotes quotes;

		QuoteController(Quotes quotes) {
			this.quotes = quotes;
		}

		@GetMapping("/quotes/{customer}")
		String quote(@PathVariable String customer) {
			return quotes.quote(customer);
		}

	}

}
