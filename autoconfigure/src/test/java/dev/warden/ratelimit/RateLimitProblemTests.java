package dev.warden.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.warden.autoconfigure.RateLimitProblems;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refusal that reaches a Spring MVC handler is a 429 with {@code Retry-After} and problem details
 * that name no class, method or limiter, ahead of catch-all handlers (application-wide of any order,
 * and a controller's own); an application's own {@link RateLimitProblems} bean replaces Warden's,
 * and with the answer switched off, the application's own error handling has it.
 */
class RateLimitProblemTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aRefusedRequestIsA429WithRetryAfterAndProblemDetails() throws Exception {
		try (ConfigurableApplicationContext app = start()) {
			assertThat(get(app, "/reports/acme").statusCode()).isEqualTo(200);

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
					type -> assertThat(type).startsWith("application/problem+json"));
			assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
					seconds -> assertThat(seconds).isBetween(1L, 60L));
			assertThat(refused.body()).contains("\"status\":429", "\"title\":\"Too Many Requests\"", "retry in")
				.doesNotContain("Reports", "reports:acme", "dev.warden");
			assertThat(get(app, "/reports/globex").statusCode()).as("another tenant").isEqualTo(200);
		}
	}

	@Test
	void anApplicationWideCatchAllHandlerDoesNotTurnItIntoA500() throws Exception {
		try (ConfigurableApplicationContext app = start(new Class<?>[] { Application.class, CatchAll.class })) {
			assertThat(get(app, "/reports/acme").statusCode()).isEqualTo(200);

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
					seconds -> assertThat(seconds).isBetween(1L, 60L));
			assertThat(refused.body()).contains("\"title\":\"Too Many Requests\"").doesNotContain("caught all");
			assertThat(app.getBean(CatchAll.class).caught).as("the catch-all never saw it").isZero();
		}
	}

	@Test
	void aCatchAllAdviceOrderedFirstDoesNotTurnItIntoA500() throws Exception {
		try (ConfigurableApplicationContext app = start(new Class<?>[] { Application.class, FirstCatchAll.class })) {
			assertThat(get(app, "/reports/acme").statusCode()).isEqualTo(200);

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
			assertThat(refused.body()).contains("\"title\":\"Too Many Requests\"");
			assertThat(app.getBean(FirstCatchAll.class).caught).as("the catch-all never saw it").isZero();
		}
	}

	@Test
	void aControllersOwnCatchAllHandlerDoesNotTurnItIntoA500() throws Exception {
		try (ConfigurableApplicationContext app = start(new Class<?>[] { CatchingApplication.class })) {
			assertThat(get(app, "/reports/acme").statusCode()).isEqualTo(200);

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
			assertThat(refused.body()).contains("\"title\":\"Too Many Requests\"");
			assertThat(get(app, "/reports/acme/failing").body()).as("other exceptions").isEqualTo("caught here");
		}
	}

	@Test
	void aRateLimitProblemsOfTheApplicationAnswersAheadOfEveryCatchAll() throws Exception {
		try (ConfigurableApplicationContext app = start(
				new Class<?>[] { CatchingApplication.class, FirstCatchAll.class, OwnBody.class })) {
			get(app, "/reports/acme");

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
			assertThat(refused.body()).contains("\"detail\":\"Slow down, please.\"", "\"plan\":\"upgrade\"");
		}
	}

	@Test
	void aRateLimitProblemsBeanOfTheApplicationReplacesWardens() throws Exception {
		try (ConfigurableApplicationContext app = start(new Class<?>[] { Application.class, OwnProblems.class })) {
			get(app, "/reports/acme");

			HttpResponse<String> refused = get(app, "/reports/acme");

			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("3600");
			assertThat(app.getBeansOfType(RateLimitProblems.class)).containsOnlyKeys("ownProblems");
		}
	}

	@Test
	void theAnswerCanBeSwitchedOff() throws Exception {
		try (ConfigurableApplicationContext app = start("--warden.rate-limit.problem-details.enabled=false")) {
			get(app, "/reports/acme");

			assertThat(get(app, "/reports/acme").statusCode()).isEqualTo(500);
		}
	}

	private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext start(String... more) {
		return start(new Class<?>[] { Application.class }, more);
	}

	private static ConfigurableApplicationContext start(Class<?>[] sources, String... more) {
		String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("--server.port=0",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:rate-limit-problems", "--spring.application.name=rate-limit-"
						+ System.nanoTime()), java.util.stream.Stream.of(more))
			.toArray(String[]::new);
		redis.node().call("FLUSHALL");
		return new SpringApplicationBuilder(sources).run(args);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		ReportController reportController(Reports reports) {
			return new ReportController(reports);
		}

	}

	/** An application-wide handler of every exception, unordered, as many applications have. */
	@RestControllerAdvice
	static class CatchAll {

		volatile int caught;

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> unexpected(Exception ex) {
			caught++;
			return ResponseEntity.internalServerError().body("caught all");
		}

	}

	/** An application-wide handler of every exception, ordered first, as Warden's own advice is. */
	@RestControllerAdvice
	@Order(Ordered.HIGHEST_PRECEDENCE)
	static class FirstCatchAll {

		volatile int caught;

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> unexpected(Exception ex) {
			caught++;
			return ResponseEntity.internalServerError().body("caught all");
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class CatchingApplication {

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		CatchingController catchingController(Reports reports) {
			return new CatchingController(reports);
		}

	}

	/** A controller with its own handler of every exception. */
	@RestController
	static class CatchingController {

		private final Reports reports;

		CatchingController(Reports reports) {
			this.reports = reports;
		}

		@GetMapping("/reports/{tenant}")
		String report(@PathVariable String tenant) {
			return reports.build(tenant);
		}

		@GetMapping("/reports/{tenant}/failing")
		String failing(@PathVariable String tenant) {
			throw new IllegalStateException("failing for " + tenant);
		}

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> unexpected(Exception ex) {
			return ResponseEntity.internalServerError().body("caught here");
		}

	}

	/** An application's own body for the answer. */
	static class OwnBody {

		@Bean
		RateLimitProblems ownBody() {
			return new RateLimitProblems() {

				@Override
				protected ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex) {
					ResponseEntity<ProblemDetail> answer = super.tooManyRequests(ex);
					ProblemDetail problem = answer.getBody();
					problem.setDetail("Slow down, please.");
					problem.setProperty("plan", "upgrade");
					return answer;
				}

			};
		}

	}

	/** An application's own answer in place of Warden's. */
	static class OwnProblems {

		@Bean
		RateLimitProblems ownProblems() {
			return new RateLimitProblems() {

				@Override
				protected long retryAfterSeconds(RateLimitExceededException ex) {
					return 3600;
				}

			};
		}

	}

	static class Reports {

		@RateLimited(name = "reports", key = "#tenant", permits = "1", period = "1m")
		public String build(String tenant) {
			return "report of " + tenant;
		}

	}

	@RestController
	static class ReportController {

		private final Reports reports;

		ReportController(Reports reports) {
			this.reports = reports;
		}

		@GetMapping("/reports/{tenant}")
		String report(@PathVariable String tenant) {
			return reports.build(tenant);
		}

	}

}
