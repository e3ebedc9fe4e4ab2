package dev.warden.test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.ratelimit.RateLimit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskClock#reset()} on the Redis {@link WardenTest} started deletes Warden's keys, in
 * batches, and the test's own ({@code warden.test.reset-keys}), and leaves every other key.
 */
@SpringBootTest(classes = TaskClockResetTests.Application.class, properties = "warden.test.reset-keys=cart:*")
@WardenTest
class TaskClockResetTests {

	@Autowired
	TaskClock clock;

	@Autowired
	TestRedis redis;

	@Autowired
	Warden warden;

	@Test
	void resetDeletesWardensKeysAndTheTestsOwnAndLeavesEveryOtherKey() throws Exception {
		redis.flushAll();
		List<String> others = List.of("session:1", "app:warden:task:{x}:due", "warden:other", "warden_permits_x",
				"lock:warden:lock:x");
		for (String key : others) {
			redis.call("SET", key, "v");
		}
		for (int i = 0; i < 1_200; i++) {
			// More than one batch of each.
			redis.call("SET", "unrelated:" + i, "v");
			redis.call("SET", "warden:task:{bulk}:" + i, "v");
		}
		redis.call("SET", "cart:42", "v");
		warden.getDelayedQueue("order-timeout", String.class).schedule("t-1", "x", Duration.ofHours(1));
		assertThat(warden.getRateLimiter("reports", RateLimit.of(5, Duration.ofMinutes(1))).tryAcquire()).isTrue();
		clock.advance(Duration.ofMinutes(1));
		// A lock under warden.lock.key-prefix, held with a lease (no watchdog to renew it afterwards).
		assertThat(warden.getLock("warden:lock:stock:pear").tryLock(warden.newOwner(), 0, 1, TimeUnit.MINUTES)).isTrue();
		assertThat(keys()).contains("warden:lock:stock:pear", "warden:test:clock-offset", "cart:42")
			.anyMatch(key -> key.startsWith("warden:rate:"))
			.anyMatch(key -> key.startsWith("warden:task:{order-timeout}:"));

		clock.reset();

		Set<String> left = keys();
		assertThat(left).containsAll(others).doesNotContain("cart:42")
			.noneMatch(key -> key.startsWith("warden:task:") || key.startsWith("warden:rate:")
					|| key.startsWith("warden:lock:") || key.equals("warden:test:clock-offset"));
		assertThat(left.stream().filter(key -> key.startsWith("unrelated:"))).hasSize(1_200);
	}

	private Set<String> keys() {
		Set<String> keys = new HashSet<>();
		for (Object key : (List<?>) redis.call("KEYS", "*")) {
			keys.add((String) key);
		}
		return keys;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
