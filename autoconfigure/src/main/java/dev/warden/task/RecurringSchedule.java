package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.OptionalLong;

import org.springframework.scheduling.support.CronExpression;

/**
 * When a recurring job's occurrences are due: by a cron expression in a time zone, at a fixed rate,
 * or a fixed delay after each run ends. Times are Redis's ({@code TIME}), never an instance's clock.
 */
public sealed interface RecurringSchedule {

	/**
	 * By a cron expression (Spring's six fields: second, minute, hour, day of month, month, day of
	 * week).
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
	 */
	String definition();

	/** The first occurrence of a job planned at {@code now}; empty when it never occurs. */
	OptionalLong first(long now);

	/**
	 * The occurrence after the one due at {@code due}, ended or starting at {@code now}: the first
	 * one after both, so occurrences missed meanwhile are not made up. Empty when there is none, or
	 * when the next one is planned when the run ends ({@link #plannedAfterRun()}).
	 */
	OptionalLong next(long due, long now);

	/** Whether the next occurrence is planned when a run ends, not when it starts. */
	default boolean plannedAfterRun() {
		return false;
	}

	/** A cron schedule. */
	record Cron(CronExpression expression, String text, ZoneId zone) implements RecurringSchedule {

		@Override
		public String definition() {
			return "cron " + text + " " + zone.getId();
		}

		@Override
		public OptionalLong first(long now) {
			return after(now);
		}

		@Override
		public OptionalLong next(long due, long now) {
			return after(Math.max(due, now));
		}

		private OptionalLong after(long millis) {
			ZonedDateTime next = expression.next(ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), zone));
			return (next != null) ? OptionalLong.of(next.toInstant().toEpochMilli()) : OptionalLong.empty();
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

		/** The next slot of the rate after both, so the period keeps its phase. */
		@Override
		public OptionalLong next(long due, long now) {
			long period = rate.toMillis();
			long periods = (Math.max(now, due) - due) / period + 1;
			return OptionalLong.of(due + periods * period);
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

		/** {@code delay} after {@code now}, the end of the run. */
		@Override
		public OptionalLong next(long due, long now) {
			return OptionalLong.of(now + delay.toMillis());
		}

		@Override
		public boolean plannedAfterRun() {
			return true;
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
