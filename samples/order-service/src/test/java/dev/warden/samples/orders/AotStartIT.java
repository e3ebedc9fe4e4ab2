package dev.warden.samples.orders;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample started in AOT mode, as a native image would start: {@code process-aot} ran
 * during the build, and {@code java -Dspring.aot.enabled=true -jar} starts from the generated
 * initializer (Spring refuses to start in that mode without it). An order placed over HTTP is sold
 * under {@code @DistributedLock} and closed by its {@code @DelayedTask} once unpaid, and the
 * {@code @RecurringTask} low-stock report runs.
 */
class AotStartIT {

	private static final Pattern ORDER_ID = Pattern.compile("\"id\":(\\d+)");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void thePackagedSampleStartsInAotModeAndLocksAndClosesOrders() throws Exception {
		Path jar = Path.of("target", "order-service.jar");
		assertThat(jar).as("the packaged sample").exists();
		int port = freePort();
		Path log = Files.createDirectories(Path.of("target", "aot-start")).resolve("order-service.log");
		Process app = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-jar", jar.toString(), "--server.port=" + port,
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--orders.payment-timeout=1s", "--orders.low-stock-report-cron=* * * * * *",
				"--orders.low-stock-threshold=1000"))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			awaitUp(app, port, log);
			assertThat(Files.readString(log)).as("Spring Boot's line for an AOT start")
				.contains("Starting AOT-processed OrderServiceApplication");

			HttpResponse<String> created = post(port, "/orders", "{\"sku\":\"apple\",\"quantity\":3}");
			assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
			Matcher id = ORDER_ID.matcher(created.body());
			assertThat(id.find()).as(created.body()).isTrue();
			assertThat(get(port, "/products/apple").body()).contains("\"stock\":97");

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			String order = get(port, "/orders/" + id.group(1)).body();
			while (!order.contains("\"status\":\"CLOSED\"")) {
				assertThat(System.nanoTime()).as("closed by its delayed task within 30 s: " + order).isLessThan(deadline);
				TimeUnit.MILLISECONDS.sleep(100);
				order = get(port, "/orders/" + id.group(1)).body();
			}
			assertThat(get(port, "/products/apple").body()).as("stock returned").contains("\"stock\":100");
			assertThat(Files.readString(log)).as("the recurring low-stock report ran").contains("Running out: apple");
		}
		finally {
			app.destroy();
			if (!app.waitFor(20, TimeUnit.SECONDS)) {
				app.destroyForcibly();
			}
		}
	}

	/** Polls the products page until it answers, the process ends, or a minute has passed. */
	private void awaitUp(Process app, int port, Path log) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			assertThat(app.isAlive()).as("the sample is running; its log:\n" + Files.readString(log)).isTrue();
			assertThat(System.nanoTime()).as("started within 60 s").isLessThan(deadline);
			try {
				if (get(port, "/products").statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			TimeUnit.MILLISECONDS.sleep(200);
		}
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(int port, String path, String json) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
