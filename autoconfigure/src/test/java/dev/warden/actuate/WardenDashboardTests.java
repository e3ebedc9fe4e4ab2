package dev.warden.actuate;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.WardenClients;
import dev.warden.actuate.OperatorApplications.Application;
import dev.warden.actuate.OperatorApplications.Operations;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard and the endpoint's writes over HTTP, in a running web application on a real Redis: a
 * page of another origin cannot have a re-drive done (a form post, or JSON with the operator's
 * credentials), and the page's own request can, without Spring Security and with it, CSRF protection
 * on, under the {@code SecurityFilterChain} {@code docs/observability.md} recommends; the page is served where the
 * Actuator is and only where it exposes the endpoint; one task is read with its whole payload.
 */
class WardenDashboardTests {

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

	@RegisterExtension
	final OperatorApplications apps = new OperatorApplications(redis::node, "dashboard");

	private DelayedQueue<String> payments;

	@BeforeEach
	void threeDeadLetters() throws Exception {
		redis.node().call("FLUSHALL");
		payments = clients.open(redis.node()).getDelayedQueue("payments", String.class);
		OperatorApplications.threeDeadLetters(payments);
	}

	@Test
	void aWriteFromAPageOfAnotherOriginIsRefusedAndReDrivesNothing() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);

		// A form cannot send the JSON the endpoint takes, whatever else the request has.
		assertThat(apps.post(app, ENDPOINT, FORM, "action=redrive", "Origin", EVIL, "Sec-Fetch-Site", "cross-site")
			.statusCode()).isEqualTo(415);
		assertThat(apps.post(app, ENDPOINT, "text/plain", REDRIVE).statusCode()).isEqualTo(415);
		assertThat(apps.post(app, ENDPOINT, null, REDRIVE).statusCode()).isEqualTo(415);
		// JSON from another origin, which a browser sends only after a CORS preflight that nothing answers.
		HttpResponse<String> forged = apps.post(app, ENDPOINT, JSON, REDRIVE, "Origin", EVIL, "Sec-Fetch-Site", "cross-site");
		assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
		assertThat(forged.body()).contains("cross-site");
		assertThat(apps.post(app, ENDPOINT, JSON, REDRIVE, "Origin", EVIL).statusCode()).isEqualTo(403);
		assertThat(apps.post(app, ENDPOINT, JSON, REDRIVE, "Sec-Fetch-Site", "same-site").statusCode()).isEqualTo(403);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);
	}

	@Test
	void thePagesOwnRequestAndAScriptReDriveWithoutSpringSecurity() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);
		HttpResponse<String> page = apps.request(app, "GET", "/actuator/warden/dashboard", null, null, "Accept", "text/html");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
		assertThat(page.body()).contains("<title>Warden</title>").doesNotContain("<meta name=\"_csrf");
		assertThat(apps.request(app, "GET", "/actuator/warden/elsewhere", null, null, "Accept", "text/html").statusCode())
			.isEqualTo(404);

		// As the browser sends the page's fetch.
		HttpResponse<String> one = apps.post(app, ENDPOINT, JSON, "{\"action\":\"redrive\",\"taskId\":\"p-1\"}", "Origin",
				OperatorApplications.origin(app), "Sec-Fetch-Site", "same-origin");
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");
		// As a script would.
		HttpResponse<String> rest = apps.post(app, ENDPOINT, JSON, REDRIVE);
		assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
		assertThat(rest.body()).contains("\"count\":2");
		assertThat(payments.deadLetterCount()).isZero();
	}

	@Test
	void underTheReadmesSecurityFilterChainWithCsrfOnThePageSendsItsToken() throws Exception {
		ConfigurableApplicationContext app = apps.start(new Class<?>[] { Application.class, Operations.class }, new String[0]);

		// A top-level form post from another origin, with the credentials the browser adds.
		assertThat(apps.post(app, ENDPOINT, FORM, "action=redrive", "Authorization", OPERATOR, "Origin", EVIL,
				"Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
		assertThat(apps.request(app, "GET", "/actuator/warden/dashboard", null, null).statusCode()).as("anonymous")
			.isEqualTo(401);
		assertThat(payments.deadLetterCount()).as("nothing re-driven").isEqualTo(3);

		HttpResponse<String> page = apps.request(app, "GET", "/actuator/warden/dashboard", null, null, "Authorization",
				OPERATOR, "Accept", "text/html");
		assertThat(page.statusCode()).isEqualTo(200);
		String header = meta(page.body(), "_csrf_header");
		String token = meta(page.body(), "_csrf");
		// The page's request without the token is refused by Spring Security; with it, done.
		assertThat(apps.post(app, ENDPOINT, JSON, REDRIVE_P1, "Authorization", OPERATOR, "Origin", OperatorApplications.origin(app),
				"Sec-Fetch-Site", "same-origin").statusCode()).isEqualTo(403);
		HttpResponse<String> one = apps.post(app, ENDPOINT, JSON, REDRIVE_P1, "Authorization", OPERATOR, "Origin",
				OperatorApplications.origin(app), "Sec-Fetch-Site", "same-origin", header, token);
		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"count\":1");
		assertThat(payments.deadLetterCount()).isEqualTo(2);
	}

	@Test
	void theDashboardIsServedWhereTheActuatorIsAndOnlyWhereItExposesTheEndpoint() throws Exception {
		ConfigurableApplicationContext management = apps.start(Application.class, "--management.server.port=0",
				"--management.endpoints.web.base-path=/ops");
		int managementPort = management.getEnvironment().getProperty("local.management.port", Integer.class);
		assertThat(apps.request(management, "GET", "/ops/warden/dashboard", null, null).statusCode())
			.as("on the application's port").isEqualTo(404);
		HttpResponse<String> page = apps.get("http://localhost:" + managementPort + "/ops/warden/dashboard");
		assertThat(page.statusCode()).as("on the management port").isEqualTo(200);
		assertThat(page.body()).contains("<title>Warden</title>");

		ConfigurableApplicationContext unexposed = apps.start(Application.class,
				"--management.endpoints.web.exposure.exclude=warden");
		assertThat(apps.request(unexposed, "GET", "/actuator/warden/dashboard", null, null).statusCode()).isEqualTo(404);
		assertThat(apps.request(unexposed, "GET", "/warden", null, null).statusCode()).isEqualTo(404);
	}

	@Test
	void oneTaskIsReadWholeOnDemand() throws Exception {
		ConfigurableApplicationContext app = apps.start(Application.class);

		HttpResponse<String> one = apps.request(app, "GET", "/actuator/warden/queues/payments/p-2", null, null);
		HttpResponse<String> none = apps.request(app, "GET", "/actuator/warden/queues/payments/p-9", null, null);

		assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
		assertThat(one.body()).contains("\"pending\":null", "\"id\":\"p-2\"", "card declined",
				"\"payloadComplete\":true");
		assertThat(none.statusCode()).as(none.body()).isEqualTo(404);
		assertThat(none.body()).contains("p-9");
	}

	private static String meta(String page, String name) {
		Matcher meta = Pattern.compile("<meta name=\"" + name + "\" content=\"([^\"]+)\">").matcher(page);
		assertThat(meta.find()).as("meta " + name + " in the page").isTrue();
		return meta.group(1);
	}

}
