package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a recurring job's occurrences are due: by a cron expression in a time zone, at a fixed rate,
 * or a fixed delay after each run ends. Times are Redis's ({@code TIME}), never an instance's clock.
 */
public sealed interface RecurringSchedule {

	/**
	 * By a cron expression (Spring's six fields: second, minute, hour, day of month, month, day of
	 * week). Around a daylight saving change in {@code zone}, an expression at fixed times of day
	 * runs each local time it names once: one that a spring-forward gap skips runs at the first
	 * instant after the gap, one that a fall-back repeats runs at its first instance. An expression
	 * with {@code *} or a step ({@code /}) in its minute or hour field runs by elapsed time instead
	 * (see {@link Cron}).
	 * @param expression the expression
	 * @param zone the time zone the expression is read in
	 * @return the schedule
	 * @throws IllegalArgumentException when the expression is invalid
	 */
	static RecurringSchedule cron(String expression, ZoneId zone) {
		return new Cron(CronExpression.parse(expression), expression.trim(), zone);
	}

	/**
	 * Every {@code rate}, the first {@code initialDelay} after the job is first planned.
	 * @param rate the period; positive
	 * @param initialDelay the delay before the first occurrence; not negative
	 * @return the schedule
	 */
	static RecurringSchedule fixedRate(Duration rate, Duration initialDelay) {
		return new FixedRate(positive(rate, "The rate"), notNegative(initialDelay));
	}

	/**
	 * {@code delay} after each run ends, the first {@code initialDelay} after the job is first
	 * planned.
	 * @param delay the delay after a run; positive
	 * @param initialDelay the delay before the first occurrence; not negative
	 * @return the schedule
	 */
	static RecurringSchedule fixedDelay(Duration delay, Duration initialDelay) {
		return new FixedDelay(positive(delay, "The delay"), notNegative(initialDelay));
	}

	/**
	 * What identifies the schedule: the same on every instance that defines it the same way. A job
	 * whose definition changes is planned anew.
	 * @return the definition
	 */
	String definition();

	/**
	 * {@return the first occurrence of a job planned at {@code now}; empty when it never occurs}
	 * @param now the time the job is planned, in epoch milliseconds
	 */
	OptionalLong first(long now);

	/**
	 * The occurrence after the one due at {@code due}, whose run started at {@code started} and
	 * ended at {@code ended}: it is planned when the run ends, so that a job never runs twice at
	 * once. Occurrences that fell due while no instance was up, or while the run was under way, are
	 * not made up (a fixed rate runs the last of them once, right away, see {@link FixedRate}).
	 * Empty when there is none.
	 * @param due the due time of the occurrence that ran, in epoch milliseconds
	 * @param started when its run started, in epoch milliseconds
	 * @param ended when its run ended, in epoch milliseconds
	 * @return the next occurrence's due time, or empty
	 */
	OptionalLong next(long due, long started, long ended);

	/**
	 * A cron schedule. Its times are the local date-times the expression names, in its zone; around
	 * a daylight saving change, as the {@code cron} daemon does:
	 * <ul>
	 * <li>an expression at fixed times of day (no {@code *} nor {@code /} in its minute and hour
	 * fields, such as {@code 0 30 2 * * *} or {@code @daily}) runs each local time it names once. A
	 * time that a spring-forward gap skips (02:30 in Paris on the last Sunday of March) runs at the
	 * first instant after the gap (03:00 summer time), once however many named times the gap holds;
	 * a time that a fall-back repeats (02:30 on the last Sunday of October) runs at its first
	 * instance (summer time) only;</li>
	 * <li>an expression at intervals ({@code 0 *}{@code /15 * * * *}, {@code @hourly}) runs by elapsed
	 * time: nothing in the gap, which the clock skips, and again in the repeated hour, so that its
	 * runs stay an interval apart.</li>
	 * </ul>
	 * Spring's {@link CronExpression} alone would skip a fixed time in the gap (no run that day) and
	 * run a repeated one twice.
	 */
	record Cron(CronExpression expression, String text, ZoneId zone) implements RecurringSchedule {

		@Override
		public String definition() {
			return "cron " + text + " " + zone.getId();
		}

		@Override
		public OptionalLong first(long now) {
			return after(now);
		}

		/**
		 * The first cron time after the run ended, as {@code @Scheduled(cron)}: cron times that
		 * passed while it ran are skipped.
		 */
		@Override
		public OptionalLong next(long due, long started, long ended) {
			return after(Math.max(due, ended));
		}

		/** The first cron time after {@code millis}, by the rules above. */
		private OptionalLong after(long millis) {
			ZonedDateTime from = ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), zone);
			if (!atFixedTimes()) {
				return epochMillis(expression.next(from));
			}
			ZoneRules rules = zone.getRules();
			// Each turn passes one repeated period, of which there are a few a year at most.
			for (int turn = 0; turn < 100; turn++) {
				ZonedDateTime next = expression.next(from);
				if (next == null) {
					return OptionalLong.empty();
				}
				Instant gap = namedTimeSkipped(rules, from.toInstant(), next.toInstant());
				if (gap != null) {
					return OptionalLong.of(gap.toEpochMilli());
				}
				ZoneOffsetTransition transition = rules.getTransition(next.toLocalDateTime());
				if (transition == null || !transition.isOverlap()
						|| !next.getOffset().equals(transition.getOffsetAfter())) {
					return OptionalLong.of(next.toInstant().toEpochMilli());
				}
				// The second instance of a repeated local time, whose first instance was the cron
				// time: go on from the end of the repeated period.
				from = ZonedDateTime.ofLocal(transition.getDateTimeBefore(), zone, transition.getOffsetAfter())
					.minusNanos(1);
			}
			return epochMillis(expression.next(from));
		}

		/**
		 * The end of the first spring-forward gap after {@code from} and not after {@code until} that
		 * holds a local time the expression names; {@code null} when there is none.
		 */
		private @Nullable Instant namedTimeSkipped(ZoneRules rules, Instant from, Instant until) {
			ZoneOffsetTransition transition = rules.nextTransition(from);
			for (int turn = 0; turn < 1_000 && transition != null && !transition.getInstant().isAfter(until); turn++) {
				if (transition.isGap()) {
					LocalDateTime named = expression.next(transition.getDateTimeBefore().minusNanos(1));
					if (named != null && named.isBefore(transition.getDateTimeAfter())) {
						return transition.getInstant();
					}
				}
				transition = rules.nextTransition(transition.getInstant());
			}
			return null;
		}

		/**
		 * Whether the expression names fixed times of day: no {@code *} nor {@code /} in its minute
		 * and hour fields.
		 */
		private boolean atFixedTimes() {
			if (text.startsWith("@")) {
				return !text.equalsIgnoreCase("@hourly");
			}
			String[] fields = text.split("\\s+");
			return fields.length < 3 || !(interval(fields[1]) || interval(fields[2]));
		}

		private static boolean interval(String field) {
			return field.contains("*") || field.contains("/");
		}

		private static OptionalLong epochMillis(@Nullable ZonedDateTime time) {
			return (time != null) ? OptionalLong.of(time.toInstant().toEpochMilli()) : OptionalLong.empty();
		}

	}

	/** A fixed-rate schedule. */
	record FixedRate(Duration rate, Duration initialDelay) implements RecurringSchedule {

		@Override
		public String definition() {
			return "rate " + rate.toMillis() + "ms";
		}

		@Override
		public OptionalLong first(long now) {
			return OptionalLong.of(now + initialDelay.toMillis());
		}

		/**
		 * The first slot of the rate after the run started, so the period keeps its phase. When the
		 * run ended after that slot (it took longer than the rate), the last slot that passed while it
		 * ran, which is due at once: as {@code @Scheduled(fixedRate)}, a late run starts as soon as the
		 * one before it ends, never beside it, and the slots it missed are not made up.
		 */
		@Override
		public OptionalLong next(long due, long started, long ended) {
			long period = rate.toMillis();
			long slot = due + (Math.max(started - due, 0) / period + 1) * period;
			if (slot > ended) {
				return OptionalLong.of(slot);
			}
			return OptionalLong.of(due + (ended - due) / period * period);
		}

	}

	/** A fixed-delay schedule. */
	record FixedDelay(Duration delay, Duration initialDelay) implements RecurringSchedule {

		@Override
		public String definition() {
			return "delay " + delay.toMillis() + "ms";
		}

		@Override
		public OptionalLong first(long now) {
			return OptionalLong.of(now + initialDelay.toMillis());
		}

		/** {@code delay} after the run ended. */
		@Override
		public OptionalLong next(long due, long started, long ended) {
			return OptionalLong.of(ended + delay.toMillis());
		}

	}

	private static Duration positive(Duration duration, String what) {
		if (duration == null || duration.isNegative() || duration.isZero() || duration.toDays() > 36_500) {
			throw new IllegalArgumentException(what + " must be positive and at most 100 years: " + duration);
		}
		return duration;
	}

	private static Duration notNegative(Duration duration) {
		if (duration == null || duration.isNegative() || duration.toDays() > 36_500) {
			throw new IllegalArgumentException("The initial delay must be zero or positive, and at most 100 years: "
					+ duration);
		}
		return duration;
	}

}
