package dev.warden.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.ratelimit.RateLimit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WardenTest} resets Warden's state and the test clock before each test by default: what the
 * first test leaves (a task, a rate limiter, a held lock, the clock a day ahead) is gone in the
 * second, and a key of the application's own stays (no {@code FLUSHALL}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(classes = WardenTestResetTests.Application.class)
@WardenTest
class WardenTestResetTests {

	@Autowired
	Warden warden;

	@Autowired
	TaskClock clock;

	@Autowired
	TestRedis redis;

	@Test
	@Order(1)
	void aTestLeavesStateBehind() throws Exception {
		leaveStateBehind(warden, clock, redis);
	}

	@Test
	@Order(2)
	void theNextTestStartsFromACleanSlate() {
		try {
			assertThat(warden.getDelayedQueue("leftovers").size()).as("the task of the previous test").isZero();
			assertThat((List<?>) redis.call("KEYS", "warden:rate:*")).as("its rate limiter").isEmpty();
			assertThat(redis.call("EXISTS", "warden:lock:leftover")).as("its lock").isEqualTo(0L);
			assertThat(redis.call("EXISTS", "warden:test:clock-offset")).as("the clock's offset").isEqualTo(0L);
			assertThat(clock.now()).as("the clock, Redis's own again").isBefore(redisTime(redis).plus(Duration.ofHours(1)));
			assertThat(redis.call("GET", "session:leftover")).as("a key that is not Warden's").isEqualTo("v");
		}
		finally {
			redis.call("DEL", "session:leftover");
		}
	}

	/** A task, a rate limiter, a lock held for a minute, the clock a day ahead, and a key of another kind. */
	static void leaveStateBehind(Warden warden, TaskClock clock, TestRedis redis) throws Exception {
		warden.getDelayedQueue("leftovers", String.class).schedule("t-1", "x", Duration.ofHours(1));
		assertThat(warden.getRateLimiter("leftovers", RateLimit.of(5, Duration.ofMinutes(1))).tryAcquire()).isTrue();
		assertThat(warden.getLock("warden:lock:leftover").tryLock(warden.newOwner(), 0, 1, TimeUnit.MINUTES)).isTrue();
		clock.advance(Duration.ofDays(1));
		redis.call("SET", "session:leftover", "v");
		assertThat(warden.getDelayedQueue("leftovers").size()).isEqualTo(1);
		assertThat(clock.now()).isAfter(redisTime(redis).plus(Duration.ofHours(23)));
	}

	/** Redis's own {@code TIME}. */
	static Instant redisTime(TestRedis redis) {
		List<?> time = (List<?>) redis.call("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1_000);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
