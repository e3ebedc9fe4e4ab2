package dev.warden.actuate;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.warden.Eventually;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
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

/**
 * Web applications that expose the warden endpoint with its writes on, started on a real Redis for
 * the tests of the operator surface and closed after each test, and an HTTP client that keeps its
 * session cookie, as an operator's browser does.
 */
final class OperatorApplications implements AfterEachCallback {

	private static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50),
			Duration.ofSeconds(1), Duration.ofMinutes(1));

	private static final String ALL_QUEUES = "--warden.endpoint.write-scope=all-queues";

	private final Supplier<RedisNode> redis;

	private final String database;

	private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

	private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

	/**
	 * @param redis the Redis the applications use
	 * @param database the name of each application's in-memory H2 database
	 */
	OperatorApplications(Supplier<RedisNode> redis, String database) {
		this.redis = redis;
		this.database = database;
	}

	@Override
	public void afterEach(ExtensionContext context) {
		this.applications.forEach(ConfigurableApplicationContext::close);
		this.applications.clear();
	}

	/**
	 * Schedules tasks p-1, p-2 and p-3 in the queue and lets each fail once, so that the queue has
	 * three dead letters ("card declined").
	 */
	static void threeDeadLetters(DelayedQueue<String> queue) throws Exception {
		for (String id : List.of("p-1", "p-2", "p-3")) {
			queue.schedule(id, "{}", Duration.ZERO);
		}
		try (TaskConsumer consumer = queue.consume(delivery -> {
			throw new IllegalStateException("card declined");
		}, ONE_ATTEMPT)) {
			Eventually.await("three dead letters", () -> queue.deadLetterCount() == 3);
		}
	}

	ConfigurableApplicationContext start(Class<?> source, String... more) {
		return start(new Class<?>[] { source }, more);
	}

	/**
	 * Starts an application with the endpoint exposed, its writes on and in scope for every queue;
	 * {@code more} arguments add to those or, for the write scope, replace it.
	 */
	ConfigurableApplicationContext start(Class<?>[] sources, String... more) {
		RedisNode node = this.redis.get();
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.host=" + node.host(),
				"--spring.data.redis.port=" + node.port(), "--management.endpoints.web.exposure.include=warden",
				"--warden.endpoint.write-operations=true", ALL_QUEUES, "--spring.datasource.url=jdbc:h2:mem:" + this.database));
		for (String arg : more) {
			if (arg.startsWith("--warden.endpoint.write-scope=")) {
				args.remove(ALL_QUEUES);
			}
			args.add(arg);
		}
		ConfigurableApplicationContext app = new SpringApplicationBuilder(sources).run(args.toArray(String[]::new));
		this.applications.add(app);
		return app;
	}

	HttpResponse<String> post(ConfigurableApplicationContext app, String path, String contentType, String body,
			String... headers) throws Exception {
		return request(app, "POST", path, contentType, body, headers);
	}

	/** A request with the given content type and body (each may be null) and header name-value pairs. */
	HttpResponse<String> request(ConfigurableApplicationContext app, String method, String path, String contentType,
			String body, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(origin(app) + path))
			.timeout(Duration.ofSeconds(20))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> get(String url) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static String origin(ConfigurableApplicationContext app) {
		return "http://localhost:" + ((WebServerApplicationContext) app).getWebServer().getPort();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

	/** The chain of {@code docs/observability.md}: operators only, HTTP Basic, CSRF protection on. */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Operations {

		@Bean
		SecurityFilterChain operations(HttpSecurity http) throws Exception {
			// That page's EndpointRequest.toAnyEndpoint(), as a path (Boot's security module is not here).
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
