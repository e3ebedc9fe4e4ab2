package dev.warden.samples.orders;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's health while Redis is killed and started again, as a Kubernetes probe sees it: every
 * answer within a probe's patience, 503 for health and readiness while Redis is gone, liveness
 * unaffected, 200 again once Redis is back.
 */
class HealthProbeTests {

	/** A probe's patience: a health request must never wait on Redis. */
	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext service;

	@AfterEach
	void stop() {
		if (service != null) {
			service.close();
		}
	}

	@Test
	void aRedisOutageFailsReadinessPromptlyAndNotLiveness() throws Exception {
		service = new SpringApplicationBuilder(OrderServiceApplication.class).run("--server.port=0",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:health;DB_CLOSE_DELAY=-1");
		assertThat(status("/actuator/health")).isEqualTo(200);
		assertThat(status("/actuator/health/readiness")).isEqualTo(200);

		redis.node().kill();

		awaitStatus("/actuator/health", 503);
		awaitStatus("/actuator/health/readiness", 503);
		assertThat(status("/actuator/health/liveness")).as("liveness").isEqualTo(200);
		for (int i = 0; i < 5; i++) {
			assertThat(status("/actuator/health")).as("answered within " + PROBE_TIMEOUT).isEqualTo(503);
		}

		redis.node().restart();

		awaitStatus("/actuator/health", 200);
		awaitStatus("/actuator/health/readiness", 200);
	}

	/** Polls until {@code path} answers {@code expected}, within 60 s. */
	private void awaitStatus(String path, int expected) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		int last = status(path);
		while (last != expected) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError(path + " answered " + last + ", not " + expected + ", for 60 s");
			}
			Thread.sleep(100);
			last = status(path);
		}
	}

	/** The status of a GET; -1 when it was not answered within a probe's patience. */
	private int status(String path) throws Exception {
		int port = ((WebServerApplicationContext) service).getWebServer().getPort();
		try {
			return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
				.timeout(PROBE_TIMEOUT)
				.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (java.net.http.HttpTimeoutException ex) {
			return -1;
		}
	}

}
