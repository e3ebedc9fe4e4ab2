package dev.warden.boot3;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.warden.samples.orders.Inventory;
import dev.warden.samples.orders.OrderService;
import dev.warden.samples.orders.OrderServiceApplication;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The order service sample, compiled and started on Spring Boot 3.5: an order is sold under its lock. */
class Boot3SampleTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void theSampleStartsOnBoot35AndSellsUnderItsLock() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderServiceApplication.class).run(
				"--server.port=0", "--spring.data.redis.host=" + redis.node().host(),
				"--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:boot3;DB_CLOSE_DELAY=-1")) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			HttpClient http = HttpClient.newHttpClient();
			HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders"))
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"apple\",\"quantity\":2}"))
				.build(), HttpResponse.BodyHandlers.ofString());

			assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
			assertThat(context.getBean(Inventory.class).findProduct("apple")).hasValueSatisfying(
					product -> assertThat(product.stock()).isEqualTo(98));
			assertThat(redis.node().call("ZCARD", "warden:task:{order-timeout}:due")).as("its payment timeout")
				.isEqualTo(1L);
		}
	}

	@Test
	void itsActuatorEndpointHealthAndDashboardWorkOnBoot35() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderServiceApplication.class).run(
				"--server.port=0", "--spring.data.redis.host=" + redis.node().host(),
				"--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:boot3-actuator;DB_CLOSE_DELAY=-1",
				"--management.endpoint.health.show-details=always")) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			context.getBean(OrderService.class).purchase("apple", 1);

			HttpResponse<String> health = get(port, "/actuator/health/warden");
			HttpResponse<String> overview = get(port, "/actuator/warden");
			HttpResponse<String> queue = get(port, "/actuator/warden/queues/order-timeout?limit=5");
			HttpResponse<String> page = get(port, "/actuator/warden/dashboard");

			assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
			assertThat(health.body()).contains("\"status\":\"UP\"").contains("pingMicros");
			assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
			assertThat(overview.body()).contains("\"name\":\"order-timeout\"").contains("\"pending\":1");
			assertThat(queue.body()).contains("\"id\":\"order-");
			assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
				.startsWith("text/html"));
			assertThat(page.body()).contains("<title>Warden</title>");
		}
	}

	private static HttpResponse<String> get(int port, String path) throws Exception {
		return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
