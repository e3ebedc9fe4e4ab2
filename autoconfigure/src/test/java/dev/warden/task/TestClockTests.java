package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.TestClock;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.redis.LuaScript;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client built with a test clock reads Redis's time plus the offset a test sets, shared by every
 * such client of the Redis; a client without one reads Redis's time, whatever the offset.
 */
class TestClockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void aTaskDueInThirtyMinutesRunsOnceTheClockIsMovedThere() throws Exception {
		Warden warden = clients.open(redis.node(), builder -> builder.testClock(true));
		TestClock clock = warden.testClock().orElseThrow();
		DelayedQueue<String> queue = warden.getDelayedQueue("clocked", String.class);
		List<Delivery<String>> ran = new CopyOnWriteArrayList<>();
		CountDownLatch done = new CountDownLatch(1);
		Instant before = clock.now();
		ScheduleResult scheduled = queue.schedule("t-1", "close", Duration.ofMinutes(30));
		assertThat(scheduled.dueAt()).isBetween(before.plus(Duration.ofMinutes(30)),
				clock.now().plus(Duration.ofMinutes(30)));

		try (TaskConsumer consumer = queue.consume(delivery -> {
			ran.add(delivery);
			done.countDown();
		})) {
			Instant moved = clock.advance(Duration.ofMinutes(30));
			clock.wake("clocked");

			assertThat(done.await(10, TimeUnit.SECONDS)).as("ran once the clock reached its due time").isTrue();
			assertThat(moved).isAfterOrEqualTo(scheduled.dueAt());
		}
		assertThat(ran).singleElement().extracting(Delivery::id).isEqualTo("t-1");
	}

	@Test
	void everyTestClockClientOfTheRedisSeesTheSameTimeAndOthersSeeRedisTime() {
		Warden first = clients.open(redis.node(), builder -> builder.testClock(true));
		Warden second = clients.open(redis.node(), builder -> builder.testClock(true));
		Warden plain = clients.open(redis.node());
		first.testClock().orElseThrow().reset();

		Instant moved = first.testClock().orElseThrow().advance(Duration.ofDays(2));

		Instant seen = second.testClock().orElseThrow().now();
		assertThat(Duration.between(moved, seen)).isBetween(Duration.ZERO, Duration.ofSeconds(5));
		assertThat(plain.testClock()).isEmpty();
		ScheduleResult plainly = plain.getDelayedQueue("unclocked", String.class).schedule("u-1", "x", Duration.ZERO);
		assertThat(plainly.dueAt()).isBefore(moved.minus(Duration.ofDays(1)));
		ScheduleResult shifted = second.getDelayedQueue("clocked-too", String.class).schedule("c-1", "x", Duration.ZERO);
		assertThat(shifted.dueAt()).isAfterOrEqualTo(moved);

		first.testClock().orElseThrow().reset();
		assertThat(Duration.between(Instant.now(), second.testClock().orElseThrow().now()).abs())
			.isLessThan(Duration.ofHours(1));
	}

	@Test
	void aRateLimiterRefillsAsTheClockMoves() {
		Warden warden = clients.open(redis.node(), builder -> builder.testClock(true));
		DistributedRateLimiter limiter = warden.getRateLimiter("clocked", RateLimit.of(1, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire()).isTrue();
		assertThat(limiter.tryAcquire()).isFalse();

		warden.testClock().orElseThrow().advance(Duration.ofHours(1));

		assertThat(limiter.tryAcquire()).isTrue();
	}

	@Test
	void onlyScriptsThatReadTheClockHaveAShiftedVariant() {
		// Any script body will do: this one reads no clock of its own.
		String body = "/dev/warden/task/redis/task-start.lua";
		LuaScript reading = LuaScript.load(LuaScript.class, body, LuaScript.CLOCK);
		LuaScript notReading = LuaScript.load(LuaScript.class, body);

		assertThat(reading.shifted()).isNotSameAs(reading).isSameAs(reading.shifted());
		assertThat(reading.shifted().source()).contains(LuaScript.CLOCK_OFFSET_KEY).endsWith(notReading.source());
		assertThat(reading.shifted().sha1()).isNotEqualTo(reading.sha1());
		assertThat(notReading.shifted()).isSameAs(notReading);
	}

}
