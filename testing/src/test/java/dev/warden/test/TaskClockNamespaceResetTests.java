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
 * {@link TaskClock#reset()} of an application in its own {@code warden.namespace} deletes the keys
 * of that namespace only: another application's on the same Redis, in the default namespace, stay.
 */
@SpringBootTest(classes = TaskClockNamespaceResetTests.Application.class,
		properties = { "warden.namespace=app1", "warden.lock.name-prefix=app1:" })
@WardenTest
class TaskClockNamespaceResetTests {

	@Autowired
	TaskClock clock;

	@Autowired
	TestRedis redis;

	@Autowired
	Warden warden;

	@Test
	void resetDeletesTheKeysOfItsNamespaceAndNoOtherApplications() throws Exception {
		redis.flushAll();
		List<String> others = List.of("warden:task:{order-timeout}:due", "warden:rate:{reports}",
				"warden:test:clock-offset", "warden:lock:stock:pear", "app2:task:{order-timeout}:due");
		for (String key : others) {
			// A number: the default namespace's clock offset is read by the other test classes' contexts.
			redis.call("SET", key, "0");
		}
		try {
			resetKeepsOthers(others);
		}
		finally {
			for (String key : others) {
				redis.call("DEL", key);
			}
		}
	}

	private void resetKeepsOthers(List<String> others) throws Exception {
		warden.getDelayedQueue("order-timeout", String.class).schedule("t-1", "x", Duration.ofHours(1));
		assertThat(warden.getRateLimiter("reports", RateLimit.of(5, Duration.ofMinutes(1))).tryAcquire()).isTrue();
		clock.advance(Duration.ofMinutes(1));
		// The lock of a @DistributedLock method, under app1:lock:, held with a lease.
		assertThat(warden.unprefixedLocks().getLock("app1:lock:stock:pear")
			.tryLock(warden.newOwner(), 0, 1, TimeUnit.MINUTES)).isTrue();
		assertThat(keys()).contains("app1:lock:stock:pear", "app1:test:clock-offset", "app1:rate:{reports}")
			.anyMatch(key -> key.startsWith("app1:task:{order-timeout}:"));

		clock.reset();

		assertThat(keys()).containsAll(others).noneMatch(key -> key.startsWith("app1:"));
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
