package dev.warden.actuate;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's re-drive over HTTP, in a running web application on a real Redis: a page of
 * another origin cannot have it done (a form post in a hidden frame, or at the top level with the
 * operator's credentials), and the page's own request can, without Spring Security and with it,
 * CSRF protection on, under the {@code SecurityFilterChain} the README recommends; and its read of one
 * task with its whole payload.
 */
class WardenDashboardTests {

	private static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMinutes(1));

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String EVIL = "http://evil.example";

	private static final String OPERATOR = "Basic " + Base64.getEncoder()
		.encodeToString("ops:secret".getBytes(StandardCharsets.UTF_8));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** Keeps the session cookie, as the operator's browser does. */
	private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

	private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

	private DelayedQueue<String> payments;

	@BeforeEach
	void threeDeadLetters() throws Exception {
		redis.node().call("FLUSHALL");
		payments = clients.open(redis.node()).getDelayedQueue("payments", String.class);
		for (String id : List.of("p-1", "p-2", "p-3")) {
			payments.schedule(id, "{}", Duration.ZERO);
		}
		try (TaskConsumer consumer = payments.consume(delivery -> {
			throw new IllegalStateException("card declined");
		}, ONE_ATTEMPT)) {
			Eventually.await("three dead letters", () -> payments.deadLetterCount() == 3);
		}
	}

	@AfterEach
	void stop() {
		applications.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aCrossSiteFormPostIsRefusedAndReDrivesNothing() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);
		String redrive = "/warden/api/queues/payments/redrive";

		HttpResponse<String> forged = post(app, redrive, FORM, "", "Origin", EVIL, "Sec-Fetch-Site", "cross-site");

		assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
		assertThat(forged.body()).contains("cross-site");
		// From another origin, even with the header, which a browser would only send after a CORS preflight.
		assertThat(post(app, redrive, null, null, "Origin", EVIL, WardenDashboardController.REQUEST_HEADER, "1")
			.statusCode()).isEqualTo(403);
		// A form of the same origin (or of none: no Origin, no Sec-Fetch-Site) cannot add the header.
		assertThat(post(app, redrive, FORM, "", "Origin", origin(app)).statusCode()).isEqualTo(403);
		assertThat(post(app, redrive, FORM, "").statusCode()).isEqualTo(403);
		// A form's body is never taken, whatever else the request has.
		assertThat(post(app, redrive, "text/plain", "{}", WardenDashboardController.REQUEST_HEADER, "1")
			.statusCode()).isEqualTo(415);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);
	}

	@Test
	void theDashboardsOwnRequestReDrivesWithoutSpringSecurity() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);
		HttpResponse<String> page = request(app, "GET", "/warden", null, null);
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("X-Warden-Request").doesNotContain("<meta name=\"_csrf");

		// As the browser sends the page's fetch.
		HttpResponse<String> one = post(app, "/warden/api/queues/payments/redrive?taskId=p-1", null, null,
				WardenDashboardController.REQUEST_HEADER, "1", "Origin", origin(app), "Sec-Fetch-Site", "same-origin");
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");
		// As a script would, with the header and a JSON body.
		HttpResponse<String> rest = post(app, "/warden/api/queues/payments/redrive", "application/json", "{}",
				WardenDashboardController.REQUEST_HEADER, "1");
		assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
		assertThat(rest.body()).contains("\"count\":2");
		assertThat(payments.deadLetterCount()).isZero();
	}

	@Test
	void oneTaskIsReadWholeOnDemand() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);

		HttpResponse<String> one = request(app, "GET", "/warden/api/queues/payments/tasks/p-2", null, null);
		HttpResponse<String> none = request(app, "GET", "/warden/api/queues/payments/tasks/p-9", null, null);

		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"pending\":null", "\"id\":\"p-2\"", "card declined",
				"\"payloadComplete\":true");
		assertThat(none.statusCode()).as(none.body()).isEqualTo(404);
		assertThat(none.body()).contains("p-9");
	}

	@Test
	void underTheReadmesSecurityFilterChainWithCsrfOnThePageSendsItsToken() throws Exception {
		ConfigurableApplicationContext app = start(Application.class, Operations.class);
		String redrive = "/warden/api/queues/payments/redrive";

		// A top-level form post from another origin, with the credentials the browser adds.
		assertThat(post(app, redrive, FORM, "", "Authorization", OPERATOR, "Origin", EVIL, "Sec-Fetch-Site",
				"cross-site").statusCode()).isEqualTo(403);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);

		HttpResponse<String> page = request(app, "GET", "/warden", null, null, "Authorization", OPERATOR);
		assertThat(page.statusCode()).isEqualTo(200);
		String header = meta(page.body(), "_csrf_header");
		String token = meta(page.body(), "_csrf");
		// The page's request without the token is refused by Spring Security; with it, done.
		assertThat(post(app, redrive + "?taskId=p-1", null, null, "Authorization", OPERATOR,
				WardenDashboardController.REQUEST_HEADER, "1", "Origin", origin(app), "Sec-Fetch-Site", "same-origin")
			.statusCode()).isEqualTo(403);
		HttpResponse<String> one = post(app, redrive + "?taskId=p-1", null, null, "Authorization", OPERATOR,
				WardenDashboardController.REQUEST_HEADER, "1", "Origin", origin(app), "Sec-Fetch-Site", "same-origin",
				header, token);
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");

		// The endpoint's writes take only JSON, which a form cannot send; scripts post them without a token.
		String endpoint = "/actuator/warden/queues/payments";
		assertThat(post(app, endpoint, FORM, "action=redrive", "Authorization", OPERATOR, "Origin", EVIL,
				"Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(415);
		assertThat(payments.deadLetterCount()).isEqualTo(2);
		HttpResponse<String> rest = post(app, endpoint, "application/json", "{\"action\":\"redrive\"}", "Authorization",
				OPERATOR);
		assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
		assertThat(payments.deadLetterCount()).isZero();
	}

	private ConfigurableApplicationContext start(Class<?>... sources) {
		ConfigurableApplicationContext app = new SpringApplicationBuilder(sources).run("--server.port=0",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--management.endpoints.web.exposure.include=warden", "--warden.actuator.write-operations=true",
				"--warden.dashboard.enabled=true", "--spring.datasource.url=jdbc:h2:mem:dashboard");
		applications.add(app);
		return app;
	}

	private HttpResponse<String> post(ConfigurableApplicationContext app, String path, String contentType, String body,
			String... headers) throws Exception {
		return request(app, "POST", path, contentType, body, headers);
	}

	private HttpResponse<String> request(ConfigurableApplicationContext app, String method, String path,
			String contentType, String body, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(origin(app) + path))
			.timeout(Duration.ofSeconds(20))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String meta(String page, String name) {
		Matcher meta = Pattern.compile("<meta name=\"" + name + "\" content=\"([^\"]+)\">").matcher(page);
		assertThat(meta.find()).as("meta " + name + " in the page").isTrue();
		return meta.group(1);
	}

	private static String origin(ConfigurableApplicationContext app) {
		return "http://localhost:" + ((WebServerApplicationContext) app).getWebServer().getPort();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

	/** The README's chain: operators only, HTTP Basic, CSRF protection on for the dashboard. */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Operations {

		@Bean
		SecurityFilterChain operations(HttpSecurity http) throws Exception {
			http.securityMatcher("/actuator/**", "/warden/**")
				.authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
				.httpBasic(Customizer.withDefaults())
				// The endpoint's writes take only JSON, which a page of another origin cannot send.
				.csrf(csrf -> csrf.ignoringRequestMatchers("/actuator/warden/**"));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager operators() {
			return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}secret").roles("OPS").build());
		}

	}

}
