package dev.warden.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.OnLockFailure;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.annotation.DelayedTask;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import static dev.warden.test.WardenAssertions.assertThatQueue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Spring Boot test of an application that configures no Redis: {@link WardenTest} gives it a real
 * one, and its locks and delayed tasks work on it.
 */
@SpringBootTest(classes = WardenTestTests.Application.class)
@WardenTest
class WardenTestTests {

	@Autowired
	TestRedis redis;

	@Autowired
	Warden warden;

	@Autowired
	Reminders reminders;

	@Autowired
	Environment environment;

	@Autowired
	Stock stock;

	@Autowired
	ApplicationContext context;

	@Autowired
	TaskClock clock;

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void theApplicationRunsOnTheTestsOwnRedis() throws Exception {
		assertThat(redis).isSameAs(TestRedis.shared());
		assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(redis.port());

		reminders.remind("r-1");
		DistributedReentrantLock lock = warden.getLock("stock:apple");
		LockOwner owner = warden.newOwner();
		assertThat(lock.tryLock(owner, 1, 30, TimeUnit.SECONDS)).isTrue();

		assertThat(redis.call("HEXISTS", "warden:task:{reminders}:tasks", "r-1")).isEqualTo(1L);
		assertThat(redis.call("EXISTS", "stock:apple")).isEqualTo(1L);
		lock.unlock(owner);
	}

	@Test
	void flushAllLeavesAnEmptyRedis() {
		reminders.remind("r-2");
		assertThat(warden.getDelayedQueue("reminders").size()).isEqualTo(1);

		redis.flushAll();

		assertThat(warden.getDelayedQueue("reminders").size()).isZero();
		assertThat(redis.call("DBSIZE")).isEqualTo(0L);
	}

	@Test
	void aLockHeldByAnotherInstanceSkipsTheLockedMethod() {
		assertThat(stock.reserve("apple")).isEqualTo("reserved apple");

		try (OtherInstance other = OtherInstance.of(context);
				OtherInstance.Hold hold = other.holdAnnotated("stock:apple")) {
			assertThat(stock.reserve("apple")).as("the lock is the other instance's").isNull();
			assertThat(stock.reserve("pear")).as("another key").isEqualTo("reserved pear");
			assertThat(hold.isHeld()).isTrue();
		}

		assertThat(stock.reserve("apple")).as("released").isEqualTo("reserved apple");
	}

	@Test
	void assertionsReadWhatTheQueueHolds() throws Exception {
		reminders.remind("r-3");

		assertThatQueue(warden, "reminders").hasPendingTasks(1)
			.hasNoDeadLetters()
			.hasNoTask("r-4")
			.hasTask("r-3")
			.dueIn(Duration.ofHours(1))
			.hasAttempts(0)
			.payload()
			.isEqualTo("\"r-3\"");
		assertThatThrownBy(() -> assertThatQueue(warden, "reminders").hasTask("r-4"))
			.hasMessageContaining("Expected queue 'reminders' to have a pending task 'r-4' but its pending tasks are [r-3]");
		assertThatThrownBy(() -> assertThatQueue(warden, "reminders").hasTask("r-3").dueIn(Duration.ofMinutes(5)))
			.hasMessageContaining("Expected task 'r-3' to be due in PT5M");

		DelayedQueue<String> broken = warden.getDelayedQueue("broken", String.class);
		broken.schedule("b-1", "x", Duration.ZERO);
		try (TaskConsumer consumer = broken.consume(delivery -> {
			throw new IllegalStateException("out of paper");
		}, new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1)))) {
			// Returns once nothing of the queue is due or in flight: the failure is recorded by then.
			clock.runDue();
		}
		assertThatQueue(warden, "broken").hasNoPendingTasks().hasDeadLetter("b-1").contains("out of paper");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

		@Bean
		Stock stock() {
			return new Stock();
		}

	}

	static class Stock {

		@DistributedLock(name = "stock", key = "#sku", waitTime = 0, onFailure = OnLockFailure.SKIP)
		public String reserve(String sku) {
			return "reserved " + sku;
		}

	}

	static class Reminders {

		@DelayedTask(queue = "reminders", delay = "1h", id = "#id")
		public void remind(String id) {
		}

	}

}
