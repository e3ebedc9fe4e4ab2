package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@link RecurringSchedule}s put their occurrences: pure computation, no Redis. Cron times
 * around real daylight saving changes, and the fixed rate's next slot after a slow run.
 */
class RecurringScheduleTests {

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

	@Test
	void aFixedTimeThatSpringForwardSkipsRunsOnceAtTheEndOfTheGap() {
		// Paris, 2026-03-29: 02:00 winter time becomes 03:00 summer time; 02:30 does not exist.
		List<Instant> paris = occurrences(RecurringSchedule.cron("0 30 2 * * *", PARIS), "2026-03-27T12:00", PARIS, 3);
		assertThat(paris).containsExactly(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-29T01:00:00Z"),
				Instant.parse("2026-03-30T00:30:00Z"));
		assertThat(paris.get(1).atZone(PARIS).toLocalDateTime()).hasToString("2026-03-29T03:00");
		// New York, 2026-03-08: 02:00 EST becomes 03:00 EDT.
		assertThat(occurrences(RecurringSchedule.cron("0 30 2 * * *", NEW_YORK), "2026-03-07T12:00", NEW_YORK, 2))
			.containsExactly(Instant.parse("2026-03-08T07:00:00Z"), Instant.parse("2026-03-09T06:30:00Z"));
	}

	@Test
	void severalFixedTimesInOneGapRunOnce() {
		// 02:00, 02:15, 02:30 and 02:45 are all skipped by the change: one run, at 03:00 summer time.
		assertThat(occurrences(RecurringSchedule.cron("0 0,15,30,45 2 * * *", PARIS), "2026-03-29T00:00", PARIS, 2))
			.containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-30T00:00:00Z"));
		// 02:00, in the gap, and 03:00 itself: one run at 03:00.
		assertThat(occurrences(RecurringSchedule.cron("0 0 2,3 * * *", PARIS), "2026-03-29T00:00", PARIS, 2))
			.containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-30T00:00:00Z"));
		// 02:30, in the gap, at 03:00; 03:30 at its own time.
		assertThat(occurrences(RecurringSchedule.cron("0 30 2,3 * * *", PARIS), "2026-03-29T00:00", PARIS, 2))
			.containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-29T01:30:00Z"));
	}

	@Test
	void aFixedTimeThatFallBackRepeatsRunsOnceAtItsFirstInstance() {
		// Paris, 2026-10-25: 03:00 summer time becomes 02:00 winter time; 02:30 happens twice.
		assertThat(occurrences(RecurringSchedule.cron("0 30 2 * * *", PARIS), "2026-10-24T12:00", PARIS, 2))
			.containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
		// New York, 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:30 happens twice.
		assertThat(occurrences(RecurringSchedule.cron("0 30 1 * * *", NEW_YORK), "2026-10-31T12:00", NEW_YORK, 2))
			.containsExactly(Instant.parse("2026-11-01T05:30:00Z"), Instant.parse("2026-11-02T06:30:00Z"));
	}

	@Test
	void aJobFirstPlannedInTheRepeatedHourWaitsForTheNextDay() {
		// Planned at 02:15 winter time, in the repeat: 02:30 ran (or would have) at its first instance.
		RecurringSchedule cron = RecurringSchedule.cron("0 30 2 * * *", PARIS);
		assertThat(cron.first(Instant.parse("2026-10-25T01:15:00Z").toEpochMilli()))
			.hasValue(Instant.parse("2026-10-26T01:30:00Z").toEpochMilli());
	}

	@Test
	void anIntervalExpressionRunsByElapsedTimeThroughBothChanges() {
		// Every 30 minutes: nothing in the gap (the clock skips it), the repeated hour runs again.
		assertThat(gaps(occurrences(RecurringSchedule.cron("0 */30 * * * *", PARIS), "2026-03-29T01:00", PARIS, 4)))
			.containsOnly(Duration.ofMinutes(30));
		assertThat(gaps(occurrences(RecurringSchedule.cron("0 */30 * * * *", PARIS), "2026-10-25T01:00", PARIS, 8)))
			.containsOnly(Duration.ofMinutes(30));
		assertThat(gaps(occurrences(RecurringSchedule.cron("@hourly", NEW_YORK), "2026-11-01T00:00", NEW_YORK, 4)))
			.containsOnly(Duration.ofHours(1));
	}

	@Test
	void aFixedRateGoesOnFromTheFirstSlotAfterTheStartOrRightAfterASlowRun() {
		RecurringSchedule rate = RecurringSchedule.fixedRate(Duration.ofMillis(200), Duration.ZERO);
		assertThat(rate.next(1_000, 1_005, 1_050)).as("a fast run").hasValue(1_200);
		assertThat(rate.next(1_000, 1_005, 1_500)).as("a run longer than two periods: the last slot it missed")
			.hasValue(1_400);
		assertThat(rate.next(1_000, 1_005, 1_400)).as("ended on a slot").hasValue(1_400);
		assertThat(rate.next(1_000, 1_700, 1_710)).as("started late: the first slot after the start").hasValue(1_800);
		assertThat(rate.next(1_000, 1_700, 2_100)).as("started late and slow").hasValue(2_000);
	}

	/** The first {@code count} occurrences of a job planned at {@code from}, each run ending at once. */
	private static List<Instant> occurrences(RecurringSchedule schedule, String from, ZoneId zone, int count) {
		List<Instant> times = new ArrayList<>();
		OptionalLong next = schedule.first(LocalDateTime.parse(from).atZone(zone).toInstant().toEpochMilli());
		while (next.isPresent() && times.size() < count) {
			long due = next.getAsLong();
			times.add(Instant.ofEpochMilli(due));
			next = schedule.next(due, due, due);
		}
		return times;
	}

	private static List<Duration> gaps(List<Instant> times) {
		List<Duration> gaps = new ArrayList<>();
		for (int i = 1; i < times.size(); i++) {
			gaps.add(Duration.between(times.get(i - 1), times.get(i)));
		}
		return gaps;
	}

}
