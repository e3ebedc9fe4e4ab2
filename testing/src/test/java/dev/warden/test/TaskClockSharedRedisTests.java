package dev.warden.test;

import java.time.Duration;
import java.util.List;

import dev.warden.Warden;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link TaskClock#reset()} on a Redis the test names itself (a shared development Redis, say):
 * refused, with the way to allow it, and nothing deleted; allowed, it deletes Warden's keys only.
 */
@SpringBootTest(classes = TaskClockSharedRedisTests.Application.class)
@WardenTest
@DirtiesContext
class TaskClockSharedRedisTests {

	/** Another service's Redis: {@link WardenTest} did not start it. */
	@RegisterExtension
	static final RedisServerExtension shared = new RedisServerExtension();

	@DynamicPropertySource
	static void sharedRedis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> shared.node().host());
		registry.add("spring.data.redis.port", () -> shared.node().port());
	}

	@Autowired
	TaskClock clock;

	@Autowired
	Warden warden;

	@Test
	void resetRefusesAndSaysHowToAllowIt() {
		fill();
		warden.getDelayedQueue("order-timeout", String.class).schedule("t-1", "x", Duration.ofHours(1));
		long before = keyCount();

		assertThatIllegalStateException().isThrownBy(clock::reset)
			.withMessageContaining("not the one @WardenTest started")
			.withMessageContaining("warden.test.reset-shared-redis=true");

		assertThat(keyCount()).as("nothing deleted").isEqualTo(before);
		assertThat(warden.getDelayedQueue("order-timeout", String.class).contains("t-1")).isTrue();
	}

	static void fill() {
		for (int i = 0; i < 1_000; i++) {
			shared.node().call("SET", "other-service:" + i, "v");
		}
		shared.node().call("SET", "cache:warden:task:x", "v");
		shared.node().call("SET", "warden:task:{order-timeout}:tasks-left-by-hand", "v");
	}

	/**
	 * The keys besides the registry of live clients, which reset leaves to them and which their
	 * announcements write again at any time (after the extension's FLUSHALL, say).
	 */
	static long keyCount() {
		return (Long) shared.node().call("EVAL", "return redis.call('dbsize') - redis.call('exists', KEYS[1], KEYS[2])",
				"2", "warden:{fleet}:instances", "warden:{fleet}:expiry");
	}

	@Nested
	@TestPropertySource(properties = "warden.test.reset-shared-redis=true")
	class Allowed {

		@Test
		void resetDeletesWardensKeysAndLeavesEveryOtherKey() {
			fill();
			warden.getDelayedQueue("order-timeout", String.class).schedule("t-1", "x", Duration.ofHours(1));
			clock.advance(Duration.ofMinutes(1));
			assertThat(shared.node().call("EXISTS", "warden:test:clock-offset")).isEqualTo(1L);

			clock.reset();

			assertThat(keyCount()).as("the other service's keys only").isEqualTo(1_001);
			assertThat((List<?>) shared.node().call("KEYS", "warden*")).asList()
				.allMatch(key -> ((String) key).startsWith("warden:{fleet}:"), "the registry of live clients");
			assertThat(shared.node().call("EXISTS", "cache:warden:task:x", "other-service:999")).isEqualTo(2L);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
