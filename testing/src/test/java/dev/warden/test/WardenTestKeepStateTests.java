package dev.warden.test;

import java.time.Duration;
import java.util.List;

import dev.warden.Warden;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import static dev.warden.test.WardenTestResetTests.leaveStateBehind;
import static dev.warden.test.WardenTestResetTests.redisTime;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @WardenTest(resetBeforeEach = false)}: what the first test leaves (a task, a rate limiter,
 * a held lock, the clock a day ahead) is still there in the second.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(classes = WardenTestKeepStateTests.Application.class)
@WardenTest(resetBeforeEach = false)
class WardenTestKeepStateTests {

	@Autowired
	Warden warden;

	@Autowired
	TaskClock clock;

	@Autowired
	TestRedis redis;

	@Test
	@Order(1)
	void aTestLeavesStateBehind() throws Exception {
		clock.reset();
		leaveStateBehind(warden, clock, redis);
	}

	@Test
	@Order(2)
	void theNextTestFindsIt() {
		try {
			assertThat(warden.getDelayedQueue("leftovers").size()).as("the task of the previous test").isEqualTo(1);
			assertThat((List<?>) redis.call("KEYS", "warden:rate:*")).as("its rate limiter").isNotEmpty();
			assertThat(redis.call("EXISTS", "warden:lock:leftover")).as("its lock").isEqualTo(1L);
			assertThat(clock.now()).as("the clock, still a day ahead")
				.isAfter(redisTime(redis).plus(Duration.ofHours(23)));
		}
		finally {
			clock.reset();
			redis.call("DEL", "session:leftover");
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
