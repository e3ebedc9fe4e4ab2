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
 * The dashboard and the endpoint's writes over HTTP, in a running web application on a real Redis: a
 * page of another origin cannot have a re-drive done (a form post, or JSON with the operator's
 * credentials), and the page's own request can, without Spring Security and with it, CSRF protection
 * on, under the {@code SecurityFilterChain} the README recommends; the page is served where the
 * Actuator is and only where it exposes the endpoint; one task is read with its whole payload.
 */
class WardenDashboardTests {

	private static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMinutes(1));

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String EVIL = "http://evil.example";

	private static final String JSON = "application/json";

	private static final String ENDPOINT = "/actuator/warden/queues/payments";

	private static final String REDRIVE = "{\"action\":\"redrive\"}";

	private static final String REDRIVE_P1 = "{\"action\":\"redrive\",\"taskId\":\"p-1\"}";

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
	void aWriteFromAPageOfAnotherOriginIsRefusedAndReDrivesNothing() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);

		// A form cannot send the JSON the endpoint takes, whatever else the request has.
		assertThat(post(app, ENDPOINT, FORM, "action=redrive", "Origin", EVIL, "Sec-Fetch-Site", "cross-site")
			.statusCode()).isEqualTo(415);
		assertThat(post(app, ENDPOINT, "text/plain", REDRIVE).statusCode()).isEqualTo(415);
		assertThat(post(app, ENDPOINT, null, REDRIVE).statusCode()).isEqualTo(415);
		// JSON from another origin, which a browser sends only after a CORS preflight that nothing answers.
		HttpResponse<String> forged = post(app, ENDPOINT, JSON, REDRIVE, "Origin", EVIL, "Sec-Fetch-Site", "cross-site");
		assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
		assertThat(forged.body()).contains("cross-site");
		assertThat(post(app, ENDPOINT, JSON, REDRIVE, "Origin", EVIL).statusCode()).isEqualTo(403);
		assertThat(post(app, ENDPOINT, JSON, REDRIVE, "Sec-Fetch-Site", "same-site").statusCode()).isEqualTo(403);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);
	}

	@Test
	void thePagesOwnRequestAndAScriptReDriveWithoutSpringSecurity() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);
		HttpResponse<String> page = request(app, "GET", "/actuator/warden/dashboard", null, null, "Accept", "text/html");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
		assertThat(page.body()).contains("<title>Warden</title>").doesNotContain("<meta name=\"_csrf");
		assertThat(request(app, "GET", "/actuator/warden/elsewhere", null, null, "Accept", "text/html").statusCode())
			.isEqualTo(404);

		// As the browser sends the page's fetch.
		HttpResponse<String> one = post(app, ENDPOINT, JSON, "{\"action\":\"redrive\",\"taskId\":\"p-1\"}", "Origin",
				origin(app), "Sec-Fetch-Site", "same-origin");
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");
		// As a script would.
		HttpResponse<String> rest = post(app, ENDPOINT, JSON, REDRIVE);
		assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
		assertThat(rest.body()).contains("\"count\":2");
		assertThat(payments.deadLetterCount()).isZero();
	}

	@Test
	void underTheReadmesSecurityFilterChainWithCsrfOnThePageSendsItsToken() throws Exception {
		ConfigurableApplicationContext app = start(new Class<?>[] { Application.class, Operations.class }, new String[0]);

		// A top-level form post from another origin, with the credentials the browser adds.
		assertThat(post(app, ENDPOINT, FORM, "action=redrive", "Authorization", OPERATOR, "Origin", EVIL,
				"Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
		assertThat(request(app, "GET", "/actuator/warden/dashboard", null, null).statusCode()).as("anonymous")
			.isEqualTo(401);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);

		HttpResponse<String> page = request(app, "GET", "/actuator/warden/dashboard", null, null, "Authorization",
				OPERATOR, "Accept", "text/html");
		assertThat(page.statusCode()).isEqualTo(200);
		String header = meta(page.body(), "_csrf_header");
		String token = meta(page.body(), "_csrf");
		// The page's request without the token is refused by Spring Security; with it, done.
		assertThat(post(app, ENDPOINT, JSON, REDRIVE_P1, "Authorization", OPERATOR, "Origin", origin(app),
				"Sec-Fetch-Site", "same-origin").statusCode()).isEqualTo(403);
		HttpResponse<String> one = post(app, ENDPOINT, JSON, REDRIVE_P1, "Authorization", OPERATOR, "Origin",
				origin(app), "Sec-Fetch-Site", "same-origin", header, token);
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");
		assertThat(payments.deadLetterCount()).isEqualTo(2);
	}

	@Test
	void theDashboardIsServedWhereTheActuatorIsAndOnlyWhereItExposesTheEndpoint() throws Exception {
		ConfigurableApplicationContext management = start(Application.class, "--management.server.port=0",
				"--management.endpoints.web.base-path=/ops");
		int managementPort = management.getEnvironment().getProperty("local.management.port", Integer.class);
		assertThat(request(management, "GET", "/ops/warden/dashboard", null, null).statusCode())
			.as("on the application's port").isEqualTo(404);
		HttpResponse<String> page = http.send(HttpRequest.newBuilder(
				URI.create("http://localhost:" + managementPort + "/ops/warden/dashboard")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(page.statusCode()).as("on the management port").isEqualTo(200);
		assertThat(page.body()).contains("<title>Warden</title>");

		ConfigurableApplicationContext unexposed = start(Application.class,
				"--management.endpoints.web.exposure.exclude=warden");
		assertThat(request(unexposed, "GET", "/actuator/warden/dashboard", null, null).statusCode()).isEqualTo(404);
		assertThat(request(unexposed, "GET", "/warden", null, null).statusCode()).isEqualTo(404);
	}

	@Test
	void oneTaskIsReadWholeOnDemand() throws Exception {
		ConfigurableApplicationContext app = start(Application.class);

		HttpResponse<String> one = request(app, "GET", "/actuator/warden/queues/payments/p-2", null, null);
		HttpResponse<String> none = request(app, "GET", "/actuator/warden/queues/payments/p-9", null, null);

		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"pending\":null", "\"id\":\"p-2\"", "card declined",
				"\"payloadComplete\":true");
		assertThat(none.statusCode()).as(none.body()).isEqualTo(404);
		assertThat(none.body()).contains("p-9");
	}

	private ConfigurableApplicationContext start(Class<?> source, String... more) {
		return start(new Class<?>[] { source }, more);
	}

	private ConfigurableApplicationContext start(Class<?>[] sources, String[] more) {
		List<String> args = new ArrayList<>(List.of("--server.port=0",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--management.endpoints.web.exposure.include=warden", "--warden.endpoint.write-operations=true",
				"--warden.endpoint.write-scope=all-queues", "--spring.datasource.url=jdbc:h2:mem:dashboard"));
		args.addAll(List.of(more));
		ConfigurableApplicationContext app = new SpringApplicationBuilder(sources).run(args.toArray(String[]::new));
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

	/** The README's chain: operators only, HTTP Basic, CSRF protection on. */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Operations {

		@Bean
		SecurityFilterChain operations(HttpSecurity http) throws Exception {
			// The README's EndpointRequest.toAnyEndpoint(), as a path (Boot's security module is not here).
			http.securityMatcher("/actuator/**")
				.authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
				.httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager operators() {
			return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}secret").roles("OPS").build());
		}

	}

}
