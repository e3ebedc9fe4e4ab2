package dev.warden.samples.orders;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances share the payment-timeout queue: unpaid orders are closed (their stock returned)
 * exactly once, paid ones never; a purchase or a payment whose transaction rolls back leaves the
 * timeouts as they were.
 */
class OrderTimeoutTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeEach
	void startTwoInstances() {
		// One database for both instances, and a new one for each test.
		String database = "jdbc:h2:mem:timeouts-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(OrderServiceApplication.class).run("--server.port=0",
					"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
					"--spring.datasource.url=" + database, "--orders.payment-timeout=2s",
					"--warden.delayed-task.shutdown-grace=5s"));
		}
		instances.get(0).getBean(Inventory.class).setStock("apple", 2_000);
	}

	@AfterEach
	void stopInstances() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aThousandOrdersHalfPaidCloseExactlyTheUnpaidOnes() throws Exception {
		ExecutorService callers = Executors.newFixedThreadPool(16);
		List<Future<Long>> created = new ArrayList<>();
		try {
			for (int i = 0; i < 1_000; i++) {
				OrderService orders = instances.get(i % 2).getBean(OrderService.class);
				boolean pay = i % 2 == 0;
				created.add(callers.submit(() -> {
					Order order = orders.purchase("apple", 1);
					if (pay) {
						orders.pay(order.id());
					}
					return order.id();
				}));
			}
			for (Future<Long> order : created) {
				order.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			callers.shutdownNow();
		}

		Inventory inventory = instances.get(1).getBean(Inventory.class);
		DelayedQueue<Object> queue = instances.get(0).getBean(Warden.class).getDelayedQueue(OrderTimeouts.QUEUE);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (inventory.countOrders("apple", "CREATED") > 0 || queue.size() > 0) {
			assertThat(System.nanoTime()).as("every timeout handled within 60 s").isLessThan(deadline);
			TimeUnit.MILLISECONDS.sleep(50);
		}
		assertThat(inventory.countOrders("apple", "PAID")).isEqualTo(500);
		assertThat(inventory.countOrders("apple", "CLOSED")).isEqualTo(500);
		// Stock returned once per closed order, never for a paid one.
		assertThat(inventory.findProduct("apple")).get().extracting(Product::stock).isEqualTo(1_500);
		assertThat(queue.deadLetters()).isEmpty();
	}

	@Test
	void aRolledBackPurchaseSchedulesNothingAndARolledBackPaymentKeepsTheTimeout() throws Exception {
		ConfigurableApplicationContext instance = instances.get(0);
		OrderService orders = instance.getBean(OrderService.class);
		Inventory inventory = instance.getBean(Inventory.class);
		DelayedQueue<Object> queue = instance.getBean(Warden.class).getDelayedQueue(OrderTimeouts.QUEUE);
		TransactionTemplate transaction = new TransactionTemplate(instance.getBean(PlatformTransactionManager.class));

		Order undone = transaction.execute(status -> {
			Order order = orders.purchase("apple", 1);
			status.setRollbackOnly();
			return order;
		});
		assertThat(inventory.findOrder(undone.id())).as("the purchase rolled back").isEmpty();
		assertThat(queue.contains(OrderTimeouts.taskId(undone.id()))).as("its timeout").isFalse();

		Order order = orders.purchase("apple", 1);
		Instant due = queue.dueAt(OrderTimeouts.taskId(order.id())).orElseThrow();
		transaction.executeWithoutResult(status -> {
			orders.pay(order.id());
			status.setRollbackOnly();
		});
		assertThat(queue.dueAt(OrderTimeouts.taskId(order.id()))).as("the timeout, after the failed payment")
			.contains(due);

		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!"CLOSED".equals(inventory.findOrder(order.id()).orElseThrow().status())) {
			assertThat(System.nanoTime()).as("the unpaid order closed by its timeout within 60 s").isLessThan(deadline);
			TimeUnit.MILLISECONDS.sleep(50);
		}
		assertThat(inventory.findProduct("apple")).get().extracting(Product::stock).isEqualTo(2_000);
	}

}
