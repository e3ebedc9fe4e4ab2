package dev.warden.samples.orders;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the service (two application contexts, two Redis clients) on one Redis and one
 * database sell exactly the stock there is.
 */
class TwoInstancesTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private final ExecutorService callers = Executors.newFixedThreadPool(32);

	private final HttpClient http = HttpClient.newBuilder().executor(callers).build();

	@BeforeEach
	void startTwoInstances() {
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(OrderServiceApplication.class).run("--server.port=0",
					"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
					"--spring.datasource.url=jdbc:h2:mem:two-instances;DB_CLOSE_DELAY=-1"));
		}
		instances.get(0).getBean(Inventory.class).setStock("apple", 100);
	}

	@AfterEach
	void stopInstances() {
		instances.forEach(ConfigurableApplicationContext::close);
		callers.shutdownNow();
	}

	@Test
	void twoHundredConcurrentPurchasesOfAHundredInStockSellExactlyAHundred() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> purchases = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			purchases.add(http.sendAsync(purchase(port(instances.get(i % 2))), HttpResponse.BodyHandlers.ofString()));
		}
		CompletableFuture.allOf(purchases.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);

		Map<Integer, Long> byStatus = purchases.stream()
			.map(CompletableFuture::join)
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(byStatus).containsExactlyInAnyOrderEntriesOf(Map.of(201, 100L, 409, 100L));
		Inventory inventory = instances.get(1).getBean(Inventory.class);
		assertThat(inventory.findProduct("apple")).get().extracting(Product::stock).isEqualTo(0);
		assertThat(inventory.countOrders("apple")).isEqualTo(100);
	}

	private static HttpRequest purchase(int port) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"apple\",\"quantity\":1}"))
			.build();
	}

	private static int port(ConfigurableApplicationContext instance) {
		return ((WebServerApplicationContext) instance).getWebServer().getPort();
	}


}
