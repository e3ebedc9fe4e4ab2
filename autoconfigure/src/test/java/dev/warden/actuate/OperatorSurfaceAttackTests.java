package dev.warden.actuate;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.actuate.OperatorApplications.Application;
import dev.warden.actuate.OperatorApplications.Operations;
import dev.warden.task.DelayedQueue;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attacks on the warden endpoint and its dashboard, in a running web application on a real Redis:
 * framing the page, odd write requests, look-alike queue names, forged header values, anonymous
 * health reads. Each asserts the safe behaviour.
 */
@ExtendWith(OutputCaptureExtension.class)
class OperatorSurfaceAttackTests {

	private static final String JSON = "application/json";

	private static final String ENDPOINT = "/actuator/warden/queues/payments";

	private static final String REDRIVE = "{\"action\":\"redrive\"}";

	private static final String OPERATOR = "Basic " + Base64.getEncoder()
		.encodeToString("ops:secret".getBytes(StandardCharsets.UTF_8));

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@RegisterExtension
	final OperatorApplications apps = new OperatorApplications(redis::node, "attacks");

	private DelayedQueue<String> payments;

	@BeforeEach
	void threeDeadLetters() throws Exception {
		redis.node().call("FLUSHALL");
		payments = deadLetters("payments");
	}

	private DelayedQueue<String> deadLetters(String name) throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue(name, String.class);
		OperatorApplications.threeDeadLetters(queue);
		return queue;
	}

	/**
	 * Clickjacking: a framed page's own clicks are same-origin requests, which the Sec-Fetch-Site and
	 * Origin checks let through, so the page refuses to be framed, with or without Spring Security.
	 */
	@Test
	void theDashboardCannotBeFramedByAnotherOriginWithoutSpringSecurity() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		HttpResponse<String> page = apps.request(app, "GET", "/actuator/warden/dashboard", null, null, "Accept", "text/html",
				"Sec-Fetch-Dest", "iframe", "Sec-Fetch-Site", "cross-site");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("redrive-all");
		boolean frameProtected = page.headers().firstValue("X-Frame-Options").isPresent()
				|| page.headers().allValues("Content-Security-Policy").stream().anyMatch(v -> v.contains("frame-ancestors"));
		assertThat(frameProtected).as("X-Frame-Options or CSP frame-ancestors on the dashboard; headers: "
				+ page.headers().map()).isTrue();
	}

	/** Under the chain of {@code docs/observability.md}, where Spring Security's headers deny framing too. */
	@Test
	void theDashboardCannotBeFramedUnderTheReadmesChain() throws Exception {
		ConfigurableApplicationContext app = apps.start(new Class<?>[] { Application.class, Operations.class });
		HttpResponse<String> page = apps.request(app, "GET", "/actuator/warden/dashboard", null, null, "Accept", "text/html",
				"Authorization", OPERATOR);
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
	}

	/** Origin: null (sandboxed iframe, data: URL) with no Sec-Fetch-Site. */
	@Test
	void originNullIsRefused() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		HttpResponse<String> forged = apps.post(app, ENDPOINT, JSON, REDRIVE, "Origin", "null");
		assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
		assertThat(payments.deadLetterCount()).isEqualTo(3);
	}

	/**
	 * A body-less POST (a no-cors fetch sends no Content-Type) with the action in the query string,
	 * as a script or an old browser sends it, with neither Origin nor Sec-Fetch-Site.
	 */
	@Test
	void aBodylessPostWithQueryParametersIsNotAWrite() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		HttpResponse<String> forged = apps.post(app, ENDPOINT + "?action=redrive", null, null);
		HttpResponse<String> plain = apps.post(app, ENDPOINT + "?action=redrive", "text/plain", "");
		HttpResponse<String> form = apps.post(app, ENDPOINT + "?action=redrive", "application/x-www-form-urlencoded", "");
		assertThat(payments.deadLetterCount()).as("no body: " + forged.statusCode() + " " + forged.body()
				+ "; text/plain empty: " + plain.statusCode() + "; form empty: " + form.statusCode()).isEqualTo(3);
	}

	/** GET, HEAD and method override headers never write. */
	@Test
	void readsAndOverridesNeverWrite() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		apps.request(app, "GET", ENDPOINT + "?action=redrive", null, null);
		apps.request(app, "HEAD", ENDPOINT + "?action=redrive", null, null);
		apps.request(app, "GET", ENDPOINT + "?action=redrive&_method=POST", null, null, "X-HTTP-Method-Override", "POST");
		apps.post(app, ENDPOINT + "?_method=POST", "application/x-www-form-urlencoded", "action=redrive&_method=POST",
				"X-HTTP-Method-Override", "POST");
		apps.post(app, ENDPOINT + "/", JSON, REDRIVE, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site");
		apps.post(app, ENDPOINT + ";x=1", JSON, REDRIVE, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site");
		apps.post(app, "/actuator/warden/queues/payments%3Bx", JSON, REDRIVE, "Sec-Fetch-Site", "cross-site");
		assertThat(payments.deadLetterCount()).isEqualTo(3);
	}

	/**
	 * With the default write scope, names that are not byte for byte a consumed queue's are refused,
	 * and no other queue changes.
	 */
	@Test
	void writeScopeCannotBeEscapedWithLookAlikes() throws Exception {
		DelayedQueue<String> upper = deadLetters("Payments");
		DelayedQueue<String> spaced = deadLetters("payments ");
		DelayedQueue<String> cyrillic = deadLetters("p\u0430yments");
		ConfigurableApplicationContext app = apps.start(new Class<?>[] { Application.class, Consumer.class },
				"--warden.endpoint.write-scope=consumed-queues");
		List<String> statuses = new ArrayList<>();
		for (String path : List.of("Payments", "payments%20", "p%D0%B0yments", "payments%09", "PAYMENTS",
				"payments;jsessionid=1", "payments%3B")) {
			statuses.add(path + "=" + apps.post(app, "/actuator/warden/queues/" + path, JSON, "{\"action\":\"purge\"}")
				.statusCode());
		}
		assertThat(upper.deadLetterCount()).as(statuses.toString()).isEqualTo(3);
		assertThat(spaced.deadLetterCount()).as(statuses.toString()).isEqualTo(3);
		assertThat(cyrillic.deadLetterCount()).as(statuses.toString()).isEqualTo(3);
	}

	/**
	 * The refusal's WARN line shows the request's Origin and Sec-Fetch-Site headers escaped: a header
	 * byte 0x85 arrives as U+0085 (NEL, a C1 control character some log viewers break lines at).
	 */
	@Test
	void theRefusalLogLineEscapesControlCharactersOfHeaders(CapturedOutput output) throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		String body = REDRIVE;
		ByteArrayOutputStream raw = new ByteArrayOutputStream();
		raw.writeBytes(("POST " + ENDPOINT + " HTTP/1.1\r\nHost: localhost:" + port + "\r\nContent-Type: " + JSON
				+ "\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\nSec-Fetch-Site: cross-site")
			.getBytes(StandardCharsets.ISO_8859_1));
		raw.write(0x85);
		raw.writeBytes(("2026-11-27 INFO Operator purged 99 dead letter(s) of queue 'payments'\r\n\r\n" + body)
			.getBytes(StandardCharsets.ISO_8859_1));
		String answer;
		try (Socket socket = new Socket("localhost", port)) {
			socket.setSoTimeout(20_000);
			OutputStream out = socket.getOutputStream();
			out.write(raw.toByteArray());
			out.flush();
			InputStream in = socket.getInputStream();
			answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
		}
		assertThat(answer).startsWith("HTTP/1.1 403");
		Eventually.await("the refusal logged", () -> output.getAll().contains("Refused a write"));
		String line = output.getAll().lines().filter(l -> l.contains("Refused a write")).findFirst().orElseThrow();
		assertThat(line).as("the logged line").doesNotContain("\u0085");
	}

	/** Health details to anonymous callers. */
	@Test
	void healthDetailsShowNothingOfTheEndpointsToAnonymousCallers() throws Exception {
		ConfigurableApplicationContext authorized = apps.start(new Class<?>[] { Application.class, Consumer.class },
				"--management.endpoint.health.show-details=when-authorized",
				"--management.endpoints.web.exposure.include=health,warden");
		HttpResponse<String> hidden = apps.request(authorized, "GET", "/actuator/health/warden", null, null);
		assertThat(hidden.body()).as(hidden.body()).doesNotContain("details", "payments");
		ConfigurableApplicationContext always = apps.start(new Class<?>[] { Application.class, Consumer.class },
				"--management.endpoint.health.show-details=always",
				"--management.endpoints.web.exposure.include=health,warden");
		String clientId = always.getBean(dev.warden.Warden.class).getClientId();
		HttpResponse<String> shown = apps.request(always, "GET", "/actuator/health", null, null);
		assertThat(shown.body()).as(shown.body()).doesNotContain(clientId, "card declined");
	}

	/** Consumes "payments" (and nothing else). */
	@Configuration(proxyBeanMethods = false)
	static class Consumer {

		@Bean
		PaymentJobs paymentJobs() {
			return new PaymentJobs();
		}

	}

	static class PaymentJobs {

		@DelayedTask(queue = "payments", delay = "1h")
		public void pay(String id) {
		}

	}

}
