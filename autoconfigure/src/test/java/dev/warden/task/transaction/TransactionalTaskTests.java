package dev.warden.task.transaction;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenTransactionAutoConfiguration;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleResult;
import dev.warden.task.TaskHandle;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Task writes inside Spring-managed transactions, on H2 and real Redis, shaped as an order service
 * writes them: an order created in a transaction schedules its timeout, a payment in a transaction
 * cancels it. A schedule takes effect on commit and never before it, nothing of a rolled-back
 * transaction does, and a committed write whose instance could not reach Redis at the commit is made
 * by the outbox sweep.
 */
class TransactionalTaskTests {

	private static final String TASKS = "warden:task:{order-timeout}:tasks";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** Each run of the timeout: the order id, and whether its row was there when it ran. */
	static final List<String> runs = new CopyOnWriteArrayList<>();

	// Both Boot lines: the same tests run on Boot 3.5 in the boot3 module.
	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withConfiguration(AutoConfigurations.of(WardenApplications.JDBC_AUTO_CONFIGURATIONS))
		.withConfiguration(AutoConfigurations.of(WardenTransactionAutoConfiguration.class))
		.withUserConfiguration(Orders.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:warden-outbox;DB_CLOSE_DELAY=-1", "spring.datasource.username=sa",
				"warden.delayed-task.transactions.relay-after=1s", "warden.delayed-task.transactions.sweep-interval=200ms",
				"warden.command-timeout=1s");

	@BeforeEach
	void clear() {
		runs.clear();
		redis.node().call("FLUSHALL");
	}

	@Test
	void aScheduleReachesRedisAtTheCommitAndTheTaskSeesTheCommittedRow() {
		runner.run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			// Due at once: were it in Redis before the commit, it could run before its row is there.
			TaskHandle handle = orders.create("o-1", false, () -> assertThat(redis.node().call("HEXISTS", TASKS, "o-1"))
				.as("in Redis before the commit")
				.isEqualTo(0L));

			assertThat(handle.result().status()).isEqualTo(ScheduleResult.Status.PENDING_COMMIT);
			assertThat(handle.dueAt()).isNull();
			Eventually.await("the timeout's run", () -> runs.size() == 1);
			assertThat(runs).containsExactly("o-1 found");
			Eventually.await("the outbox emptied once the write is made", () -> outboxRows(context) == 0);
		});
	}

	@Test
	void aRolledBackOrderLeavesNothingToRun() {
		runner.run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalStateException().isThrownBy(() -> orders.create("o-2", true, () -> {
			}));

			assertThat(redis.node().call("HLEN", TASKS)).isEqualTo(0L);
			assertThat(outboxRows(context)).isZero();
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("select count(*) from orders", Integer.class))
				.isZero();
		});
	}

	@Test
	void aRolledBackPaymentLeavesTheTimeoutPendingAndDueAsBefore() {
		runner.withPropertyValues("orders.timeout=1h").run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.create("o-3", false, () -> {
			});
			DelayedQueue<Object> timeouts = context.getBean(Warden.class).getDelayedQueue("order-timeout");
			Object due = timeouts.dueAt("o-3").orElseThrow();

			assertThatIllegalStateException().isThrownBy(() -> orders.pay("o-3", true));

			assertThat(timeouts.dueAt("o-3")).as("still pending, due as before").contains((java.time.Instant) due);
		});
	}

	@Test
	void aCommittedPaymentCancelsTheTimeoutAndSaysItWasPending() {
		runner.withPropertyValues("orders.timeout=1h").run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.create("o-4", false, () -> {
			});

			assertThat(orders.pay("o-4", false)).as("pending when the cancel was made").isTrue();

			assertThat(redis.node().call("HEXISTS", TASKS, "o-4")).isEqualTo(0L);
		});
	}

	@Test
	void aScheduleThenACancelInOneTransactionStoresNothing() {
		runner.run(context -> {
			context.getBean(OrderService.class).createAndCancel("o-5");

			assertThat(redis.node().call("HLEN", TASKS)).isEqualTo(0L);
			Eventually.await("the outbox emptied", () -> outboxRows(context) == 0);
		});
	}

	@Test
	void propagationDecides_requiresNewCommitsOnItsOwnAndNotSupportedWritesAtOnce() {
		runner.withPropertyValues("orders.timeout=1h").run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalStateException().isThrownBy(() -> orders.outerFailingAround("o-6", "o-7"));

			assertThat(redis.node().call("HEXISTS", TASKS, "o-6")).as("scheduled in REQUIRES_NEW").isEqualTo(1L);
			assertThat(redis.node().call("HEXISTS", TASKS, "o-7")).as("scheduled with NOT_SUPPORTED").isEqualTo(1L);
		});
	}

	@Test
	void aTransactionTemplateAndTheQueueApiFollowTheTransactionToo() {
		runner.withPropertyValues("orders.timeout=1h").run(context -> {
			TransactionTemplate template = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			DelayedQueue<String> queue = context.getBean(Warden.class).getDelayedQueue("plain", String.class);

			ScheduleResult inside = template.execute(status -> queue.schedule("p-1", "x", Duration.ofHours(1)));
			template.executeWithoutResult(status -> {
				queue.schedule("p-2", "x", Duration.ofHours(1));
				status.setRollbackOnly();
			});

			assertThat(inside.status()).isEqualTo(ScheduleResult.Status.PENDING_COMMIT);
			assertThat(queue.contains("p-1")).isTrue();
			assertThat(queue.contains("p-2")).isFalse();
		});
	}

	@Test
	void theOptOutsWriteAtOnce() {
		runner.withPropertyValues("orders.timeout=1h", "warden.delayed-task.queues.plain.transactional=false")
			.run(context -> {
				OrderService orders = context.getBean(OrderService.class);
				assertThatIllegalStateException().isThrownBy(() -> orders.failAfterImmediateWrites("o-8"));

				assertThat(redis.node().call("HEXISTS", "warden:task:{immediate}:tasks", "o-8"))
					.as("@DelayedTask(transactional = false)").isEqualTo(1L);
				assertThat(redis.node().call("HEXISTS", "warden:task:{plain}:tasks", "o-8"))
					.as("warden.delayed-task.queues.plain.transactional=false").isEqualTo(1L);
			});
	}

	@Test
	void aCommitWhileRedisIsStoppedIsMadeByTheSweepOnceRedisIsBack() {
		runner.run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			try {
				orders.create("o-9", false, () -> redis.node().pause());
				// Looked at while Redis is still paused: once it answers, the sweep may make it at once.
				assertThat(outboxRows(context)).as("kept for the sweep").isEqualTo(1);
			}
			finally {
				redis.node().resume();
			}

			Eventually.await("the timeout's run, from the sweep", () -> runs.size() == 1);
			assertThat(runs).containsExactly("o-9 found");
			Eventually.await("the outbox emptied", () -> outboxRows(context) == 0);
		});
	}

	@Test
	void aWriteFromAnAfterCommitListenerIsMadeByTheSweepAndLeavesTheNextTransactionAlone() {
		runner.withPropertyValues("orders.timeout=1h").run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.createAnnounced("o-10");
			Eventually.await("the listener's write, made by the sweep", () -> (Long) redis.node()
				.call("HEXISTS", "warden:task:{reminders}:tasks", "o-10") == 1L);

			// The same thread's next transaction writes at its own commit, as usual.
			orders.create("o-11", false, () -> {
			});
			assertThat(redis.node().call("HEXISTS", TASKS, "o-11")).as("made at the commit").isEqualTo(1L);
		});
	}

	private static int outboxRows(org.springframework.context.ApplicationContext context) {
		Integer rows = context.getBean(JdbcTemplate.class).queryForObject("select count(*) from warden_task_outbox",
				Integer.class);
		return (rows != null) ? rows : -1;
	}

	@Configuration(proxyBeanMethods = false)
	static class Orders {

		@Bean
		OrderTimeouts orderTimeouts(JdbcTemplate jdbc) {
			jdbc.execute("create table if not exists orders (id varchar(20) primary key, status varchar(10))");
			jdbc.execute("delete from orders");
			return new OrderTimeouts(jdbc);
		}

		@Bean
		Reminders reminders(Warden warden) {
			return new Reminders(warden);
		}

		@Bean
		InnerService innerService(JdbcTemplate jdbc, OrderTimeouts timeouts) {
			return new InnerService(jdbc, timeouts);
		}

		@Bean
		OrderService orderService(JdbcTemplate jdbc, OrderTimeouts timeouts, Warden warden, InnerService inner,
				ApplicationEventPublisher events) {
			return new OrderService(jdbc, timeouts, warden, inner, events);
		}

	}

	static class OrderTimeouts {

		private final JdbcTemplate jdbc;

		OrderTimeouts(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DelayedTask(queue = "order-timeout", delay = "${orders.timeout:0s}", id = "#orderId")
		public TaskHandle closeIfUnpaid(String orderId) {
			Integer found = jdbc.queryForObject("select count(*) from orders where id = ?", Integer.class, orderId);
			runs.add(orderId + ((found != null && found == 1) ? " found" : " missing"));
			return null;
		}

		@DelayedTask(queue = "immediate", delay = "1h", id = "#orderId", transactional = false)
		public void remind(String orderId) {
		}

	}

	/** An order was created. */
	record Created(String orderId) {
	}

	/** Schedules a reminder once an order's transaction committed. */
	static class Reminders {

		private final Warden warden;

		Reminders(Warden warden) {
			this.warden = warden;
		}

		@TransactionalEventListener
		public void onCreated(Created created) {
			warden.getDelayedQueue("reminders", String.class).schedule(created.orderId(), "remind", Duration.ofHours(1));
		}

	}

	/** Transactions of their own inside the service's, as another bean's methods. */
	static class InnerService {

		private final JdbcTemplate jdbc;

		private final OrderTimeouts timeouts;

		InnerService(JdbcTemplate jdbc, OrderTimeouts timeouts) {
			this.jdbc = jdbc;
			this.timeouts = timeouts;
		}

		@Transactional(propagation = Propagation.REQUIRES_NEW)
		public void createOwn(String orderId) {
			jdbc.update("insert into orders values (?, 'UNPAID')", orderId);
			timeouts.closeIfUnpaid(orderId);
		}

		@Transactional(propagation = Propagation.NOT_SUPPORTED)
		public void scheduleUntransacted(String orderId) {
			timeouts.closeIfUnpaid(orderId);
		}

	}

	static class OrderService {

		private final JdbcTemplate jdbc;

		private final OrderTimeouts timeouts;

		private final Warden warden;

		private final InnerService inner;

		private final ApplicationEventPublisher events;

		OrderService(JdbcTemplate jdbc, OrderTimeouts timeouts, Warden warden, InnerService inner,
				ApplicationEventPublisher events) {
			this.jdbc = jdbc;
			this.timeouts = timeouts;
			this.warden = warden;
			this.inner = inner;
			this.events = events;
		}

		@Transactional
		public TaskHandle create(String orderId, boolean fail, Runnable beforeCommit) {
			jdbc.update("insert into orders values (?, 'UNPAID')", orderId);
			TaskHandle handle = timeouts.closeIfUnpaid(orderId);
			beforeCommit.run();
			if (fail) {
				throw new IllegalStateException("purchase failed");
			}
			return handle;
		}

		@Transactional
		public void createAnnounced(String orderId) {
			jdbc.update("insert into orders values (?, 'UNPAID')", orderId);
			events.publishEvent(new Created(orderId));
		}

		@Transactional
		public boolean pay(String orderId, boolean fail) {
			jdbc.update("update orders set status = 'PAID' where id = ?", orderId);
			boolean pending = warden.getDelayedQueue("order-timeout").cancel(orderId);
			if (fail) {
				throw new IllegalStateException("payment failed");
			}
			return pending;
		}

		@Transactional
		public void createAndCancel(String orderId) {
			jdbc.update("insert into orders values (?, 'UNPAID')", orderId);
			timeouts.closeIfUnpaid(orderId);
			warden.getDelayedQueue("order-timeout").cancel(orderId);
		}

		@Transactional
		public void outerFailingAround(String requiresNew, String notSupported) {
			inner.createOwn(requiresNew);
			inner.scheduleUntransacted(notSupported);
			assertThat(redis.node().call("HEXISTS", TASKS, notSupported)).isEqualTo(1L);
			throw new IllegalStateException("outer failed");
		}

		@Transactional
		public void failAfterImmediateWrites(String orderId) {
			timeouts.remind(orderId);
			warden.getDelayedQueue("plain", String.class).schedule(orderId, "x", Duration.ofHours(1));
			throw new IllegalStateException("failed after immediate writes");
		}

	}

}
