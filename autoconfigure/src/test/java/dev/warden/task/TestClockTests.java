package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
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
	void aCronTimeThatSpringForwardSkipsRunsAtTheEndOfTheGapByTheTestClock() throws Exception {
		Warden warden = clients.open(redis.node(), builder -> builder.testClock(true));
		TestClock clock = warden.testClock().orElseThrow();
		clock.reset();
		ZoneId paris = ZoneId.of("Europe/Paris");
		// The next change to summer time in Paris (02:00 becomes 03:00), whenever the suite runs.
		ZoneOffsetTransition next = paris.getRules().nextTransition(clock.now().plus(Duration.ofDays(1)));
		ZoneOffsetTransition gap = next.isGap() ? next : paris.getRules().nextTransition(next.getInstant());
		clock.advance(Duration.between(clock.now(), gap.getInstant().minus(Duration.ofHours(12))));
		List<Instant> runs = new CopyOnWriteArrayList<>();
		CountDownLatch ran = new CountDownLatch(1);
		RecurringJob nightly = new RecurringJob("nightly", RecurringSchedule.cron("0 30 2 * * *", paris),
				Misfire.RUN_ONCE, () -> {
					runs.add(clock.now());
					ran.countDown();
				});
		String plans = "warden:task:{dst-clocked}:recurring";
		try (TaskConsumer consumer = warden.runRecurring("dst-clocked", List.of(nightly), Duration.ofMinutes(1))) {
			assertThat((String) redis.node().call("HGET", plans, "nightly"))
				.as("02:30 does not exist that day: due at 03:00 summer time")
				.startsWith(gap.getInstant().toEpochMilli() + " ");

			clock.advance(Duration.between(clock.now(), gap.getInstant()));
			clock.wake("dst-clocked");

			assertThat(ran.await(10, TimeUnit.SECONDS)).as("ran once the clock reached the end of the gap").isTrue();
			long tomorrow = gap.getDateTimeAfter().toLocalDate().plusDays(1).atTime(2, 30).atZone(paris).toInstant()
				.toEpochMilli();
			Eventually.await("the next night planned", () -> String.valueOf(redis.node().call("HGET", plans, "nightly"))
				.startsWith(tomorrow + " "));
		}
		finally {
			clock.reset();
		}
		assertThat(runs).singleElement().satisfies(run -> assertThat(run).isAfterOrEqualTo(gap.getInstant()));
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
