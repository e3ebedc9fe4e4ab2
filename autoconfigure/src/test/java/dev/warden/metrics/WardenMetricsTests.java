package dev.warden.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenMetricsAutoConfiguration;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every Warden meter, read from a registry after real locks and tasks on a real Redis: its name,
 * its tags, and that it counts what it says.
 */
class WardenMetricsTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/**
	 * A thread per blocking call: the common pool has one thread on a 2-core machine, which a task
	 * another test left blocked there would keep from these calls.
	 */
	private static final java.util.concurrent.Executor OWN_THREAD = task -> {
		Thread thread = new Thread(task, "metrics-test-call");
		thread.setDaemon(true);
		thread.start();
	};

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withConfiguration(AutoConfigurations.of(WardenMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withUserConfiguration(Locked.class)
		.withPropertyValues("warden.metrics.queue-refresh-interval=0s");

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void lockCallsAreTimedByOutcomeAndHoldAndTheWaitersAreCounted() {
		runner.run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Stock stock = context.getBean(Stock.class);
			Holding holder = hold(stock, "sku-1");

			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> stock.tryReserve("sku-1"));
			CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> stock.waitToReserve("sku-1"), OWN_THREAD);
			Eventually.await("a call waits for the lock",
					() -> registry.get("warden.lock.waiters").gauge().value() == 1.0);
			holder.release().countDown();
			holder.call().get(10, TimeUnit.SECONDS);
			waiter.get(10, TimeUnit.SECONDS);

			assertThat(registry.get("warden.lock.waiters").gauge().value()).isZero();
			Timer acquired = registry.get("warden.lock.acquire")
				.tags("kind", "reentrant", "name", "stock", "outcome", "acquired")
				.timer();
			assertThat(acquired.count()).as("the holder and the waiter").isEqualTo(2);
			Timer timedOut = registry.get("warden.lock.acquire")
				.tags("kind", "reentrant", "name", "stock", "outcome", "timeout")
				.timer();
			assertThat(timedOut.count()).isEqualTo(1);
			Timer held = registry.get("warden.lock.held").tags("kind", "reentrant", "name", "stock").timer();
			assertThat(held.count()).isEqualTo(2);
			assertThat(held.max(TimeUnit.NANOSECONDS)).isPositive();
			assertThat(registry.find("warden.lock.acquire").tag("name", "stock:sku-1").timers())
				.as("no tag carries an evaluated key").isEmpty();
		});
	}

	@Test
	void theWaitersGaugeOutlivesAGarbageCollection() {
		runner.run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			// A gauge holds its object weakly: a collection must not leave it reading NaN.
			System.gc();
			System.gc();

			assertThat(registry.get("warden.lock.waiters").gauge().value()).isZero();
		});
	}

	@Test
	void aLeaseLostWhileHeldIsCounted() {
		// A 3 s lease, so that the watchdog looks every second rather than every 10 s.
		runner.withPropertyValues("warden.lock.watchdog-timeout=3s").run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Stock stock = context.getBean(Stock.class);
			Holding holder = hold(stock, "sku-2");

			// An operator's mistake: the held lock is deleted under its holder. The watchdog finds it gone.
			redis.node().call("DEL", "warden:lock:stock:sku-2");
			Eventually.await("the lost lease is counted", Duration.ofSeconds(30),
					() -> registry.get("warden.lock.lease.lost").counter().count() == 1.0);
			holder.release().countDown();
			assertThat(holder.call()).failsWithin(Duration.ofSeconds(10));
		});
	}

	@Test
	void tasksAreCountedAndTimedAndTheirQueuesGauged() {
		runner.run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Warden warden = context.getBean(Warden.class);
			DelayedQueue<String> queue = warden.getDelayedQueue("orders", String.class);
			queue.schedule("ok-1", "ok", Duration.ZERO);
			queue.schedule("ok-2", "ok", Duration.ZERO);
			queue.schedule("retried", "fail-once", Duration.ZERO);
			queue.schedule("doomed", "fail", Duration.ZERO);
			queue.schedule("later", "ok", Duration.ofHours(1));
			assertThat(registry.get("warden.task.scheduled").tag("queue", "orders").counter().count()).isEqualTo(5);

			java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
			CountDownLatch blocking = new CountDownLatch(1);
			CountDownLatch unblock = new CountDownLatch(1);
			queue.schedule("slow", "block", Duration.ZERO);
			ConsumerOptions options = new ConsumerOptions(2, Duration.ofMillis(20), Duration.ofMillis(20),
					Duration.ofMinutes(1));
			try (TaskConsumer consumer = queue.consume(delivery -> {
				switch (delivery.payload()) {
					case "fail" -> throw new IllegalStateException("no stock");
					case "fail-once" -> {
						if (failedOnce.add(delivery.id())) {
							throw new IllegalStateException("try again");
						}
					}
					case "block" -> {
						blocking.countDown();
						unblock.await(10, TimeUnit.SECONDS);
					}
					default -> {
					}
				}
			}, options)) {
				assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
				Eventually.await("the other due tasks are done", () -> counter(registry, "warden.task.completed") == 3
						&& counter(registry, "warden.task.dead") == 1);
				assertThat(gauge(registry, "warden.task.in.flight")).as("the slow one").isEqualTo(1);
				assertThat(gauge(registry, "warden.task.pending")).as("the later one").isEqualTo(1);
				assertThat(gauge(registry, "warden.task.dead.letters")).isEqualTo(1);
				unblock.countDown();
				Eventually.await("the slow one is done", () -> counter(registry, "warden.task.completed") == 4);
			}

			// fail-once failed once and then passed; fail failed twice and died.
			assertThat(counter(registry, "warden.task.failed")).isEqualTo(3);
			assertThat(registry.get("warden.task.duration").tags("queue", "orders", "outcome", "completed").timer()
				.count()).isEqualTo(4);
			assertThat(registry.get("warden.task.duration").tags("queue", "orders", "outcome", "failed").timer()
				.count()).isEqualTo(3);
			Timer lateness = registry.get("warden.task.lateness").tag("queue", "orders").timer();
			assertThat(lateness.count()).as("every delivery").isEqualTo(7);
			assertThat(lateness.max(TimeUnit.MILLISECONDS)).as("the retry waited for its backoff only")
				.isLessThan(10_000);
			assertThat(gauge(registry, "warden.task.in.flight")).isZero();
			assertThat(context.getBean(WardenMetrics.class).lateness("orders")).as("for the dashboard")
				.containsOnlyKeys("mean", "max");
		});
	}

	@Test
	void gaugesReadRedisAtMostOncePerRefreshInterval() {
		runner.withPropertyValues("warden.metrics.queue-refresh-interval=1h").run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			DelayedQueue<String> queue = context.getBean(Warden.class).getDelayedQueue("cached", String.class);
			queue.schedule("a", "x", Duration.ofHours(1));
			assertThat(gauge(registry, "warden.task.pending", "cached")).isEqualTo(1);

			queue.schedule("b", "x", Duration.ofHours(1));

			assertThat(gauge(registry, "warden.task.pending", "cached")).as("the counts read an hour ago at most")
				.isEqualTo(1);
			assertThat(queue.stats().pending()).isEqualTo(2);
		});
	}

	@Test
	void theFleetGaugeCountsTheLiveInstancesOnThisRedis() {
		runner.run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("warden.fleet.instances").gauge().value()).as("this one").isEqualTo(1);
			RedisClient client = RedisClient.create(redis.node().uri());
			try {
				try (Warden other = Warden.create(client)) {
					assertThat(registry.get("warden.fleet.instances").gauge().value()).as("and another").isEqualTo(2);
				}
				assertThat(registry.get("warden.fleet.instances").gauge().value()).as("closed").isEqualTo(1);
			}
			finally {
				client.shutdown();
			}
		});
	}

	@Test
	void noMetersWithoutARegistryOrWhenTurnedOff() {
		WardenApplications.runner(redis.node())
			.withConfiguration(AutoConfigurations.of(WardenMetricsAutoConfiguration.class))
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WardenMetrics.class));
		runner.withPropertyValues("warden.metrics.enabled=false")
			.run(context -> assertThat(context.getBean(MeterRegistry.class).find("warden.lock.waiters").gauge()).isNull());
	}

	/**
	 * A call of {@link Stock#reserve} holding its lock until released.
	 *
	 * @param call the call
	 * @param release lets it return
	 */
	private record Holding(CompletableFuture<Void> call, CountDownLatch release) {
	}

	private static Holding hold(Stock stock, String sku) throws InterruptedException {
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> call = CompletableFuture.runAsync(() -> stock.reserve(sku, holding, release), OWN_THREAD);
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		return new Holding(call, release);
	}

	private static double counter(MeterRegistry registry, String name) {
		return registry.get(name).tag("queue", "orders").counter().count();
	}

	private static double gauge(MeterRegistry registry, String name) {
		return gauge(registry, name, "orders");
	}

	private static double gauge(MeterRegistry registry, String name, String queue) {
		return registry.get(name).tag("queue", queue).gauge().value();
	}

	@Configuration(proxyBeanMethods = false)
	static class Locked {

		@Bean
		Stock stock() {
			return new Stock();
		}

	}

	static class Stock {

		@DistributedLock(name = "stock", key = "#sku")
		public void reserve(String sku, CountDownLatch holding, CountDownLatch release) {
			holding.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = 0)
		public void tryReserve(String sku) {
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = 10_000)
		public void waitToReserve(String sku) {
		}

	}

}
