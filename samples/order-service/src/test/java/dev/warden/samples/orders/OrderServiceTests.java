package dev.warden.samples.orders;

import java.time.Duration;
import java.util.List;

import dev.warden.Warden;
import dev.warden.task.EndedDelivery.Outcome;
import dev.warden.test.LockRecorder;
import dev.warden.test.RanTask;
import dev.warden.test.TaskClock;
import dev.warden.test.TaskModes;
import dev.warden.test.WardenTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static dev.warden.test.WardenAssertions.assertThatLocks;
import static dev.warden.test.WardenAssertions.assertThatQueue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order service tested as a team tests its own service with {@code warden-test}: the payment
 * timeout keeps its 30 minutes and the low-stock report its nightly schedule, and the test clock
 * runs them in milliseconds, through the real queue, lock and transaction.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
		"spring.datasource.url=jdbc:h2:mem:order-service-tests;DB_CLOSE_DELAY=-1",
		"sample.embedded-redis.enabled=false" })
@WardenTest
class OrderServiceTests {

	@Autowired
	OrderService orders;

	@Autowired
	Inventory inventory;

	@Autowired
	Warden warden;

	@Autowired
	TaskClock clock;

	@Autowired
	TaskModes tasks;

	@Autowired
	LockRecorder locks;

	@BeforeEach
	void clean() {
		// Warden's keys and the test clock are reset before each test by @WardenTest: the stock is the test's own.
		inventory.setStock("apple", 100);
	}

	@Test
	void anUnpaidOrderIsClosedAndItsStockReturnedAfterThePaymentTimeout() {
		Order order = orders.purchase("apple", 3);
		assertThat(inventory.findProduct("apple").orElseThrow().stock()).isEqualTo(97);
		assertThatQueue(warden, OrderTimeouts.QUEUE).hasTask(OrderTimeouts.taskId(order.id()))
			.dueIn(Duration.ofMinutes(30))
			.hasArguments(order.id(), "apple");

		// Only this queue's tasks: the nightly report runs too when the 30 minutes take the clock past 02:00.
		assertThat(clock.advance(Duration.ofMinutes(29))).noneMatch(task -> task.queue().equals(OrderTimeouts.QUEUE));
		assertThat(inventory.findOrder(order.id()).orElseThrow().status()).isEqualTo("CREATED");

		List<RanTask> ran = clock.advance(Duration.ofMinutes(1));

		assertThat(ran).filteredOn(task -> task.queue().equals(OrderTimeouts.QUEUE)).singleElement().satisfies(task -> {
			assertThat(task.id()).isEqualTo(OrderTimeouts.taskId(order.id()));
			assertThat(task.outcome()).isEqualTo(Outcome.COMPLETED);
		});
		assertThat(inventory.findOrder(order.id()).orElseThrow().status()).isEqualTo("CLOSED");
		assertThat(inventory.findProduct("apple").orElseThrow().stock()).isEqualTo(100);
		assertThatLocks(locks).held("stock:apple").by(OrderService.class, "purchase").by(OrderTimeouts.class,
				"closeIfUnpaid");
	}

	@Test
	void aPaidOrderIsNotClosed() {
		Order order = orders.purchase("apple", 3);
		orders.pay(order.id());
		assertThatQueue(warden, OrderTimeouts.QUEUE).hasNoTask(OrderTimeouts.taskId(order.id()));

		assertThat(clock.advance(Duration.ofHours(1))).noneMatch(task -> task.queue().equals(OrderTimeouts.QUEUE));

		assertThat(inventory.findOrder(order.id()).orElseThrow().status()).isEqualTo("PAID");
		assertThat(inventory.findProduct("apple").orElseThrow().stock()).isEqualTo(97);
	}

	@Test
	void theLowStockReportRunsOncePerNight() {
		List<RanTask> ran = clock.advance(Duration.ofDays(3));

		assertThat(ran).filteredOn(task -> task.id().startsWith("low-stock-report@"))
			.hasSize(3)
			.allMatch(RanTask::completed);
	}

	@Test
	void aPurchaseSchedulesItsTimeoutForThirtyMinutes() {
		tasks.fake();

		Order order = orders.purchase("apple", 1);

		assertThat(tasks.calls()).singleElement().satisfies(call -> {
			assertThat(call.queue()).isEqualTo(OrderTimeouts.QUEUE);
			assertThat(call.id()).isEqualTo(OrderTimeouts.taskId(order.id()));
			assertThat(call.delay()).isEqualTo(Duration.ofMinutes(30));
			assertThat(call.arguments()).containsExactly(order.id(), "apple");
		});
		assertThatQueue(warden, OrderTimeouts.QUEUE).hasNoPendingTasks();
	}

}
