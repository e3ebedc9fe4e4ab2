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
	 * The occurrence after the one due at {@code due}, whose run started at {@code started} and
	 * ended at {@code ended}: it is planned when the run ends, so that a job never runs twice at
	 * once. Occurrences that fell due while no instance was up, or while the run was under way, are
	 * not made up (a fixed rate runs the last of them once, right away, see {@link FixedRate}).
	 * Empty when there is none.
	 */
	OptionalLong next(long due, long started, long ended);

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

		/**
		 * The first cron time after the run ended, as {@code @Scheduled(cron)}: cron times that
		 * passed while it ran are skipped.
		 */
		@Override
		public OptionalLong next(long due, long started, long ended) {
			return after(Math.max(due, ended));
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
