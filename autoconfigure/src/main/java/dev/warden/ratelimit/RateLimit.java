package dev.warden.ratelimit;

import java.time.Duration;

/**
 * How fast a {@link DistributedRateLimiter} hands out permits: {@code permits} per {@code period},
 * evenly spaced, with at most {@code burst} taken at once by callers that find it full.
 * <pre class="code">
 * RateLimit.of(100, Duration.ofSeconds(1)).withBurst(20)   // 100 a second, 20 at once
 * </pre>
 *
 * @param permits how many permits per period; positive
 * @param period the period; positive
 * @param burst how many permits a full limiter grants at once; positive
 */
public record RateLimit(long permits, Duration period, long burst) {

	/** The shortest spacing between two permits Warden times: one microsecond. */
	private static final long MIN_INTERVAL_NANOS = 1_000;

	/** The largest burst: the limiter's times stay exact in Lua's doubles. */
	public static final long MAX_BURST = 1_000_000_000L;

	/**
	 * A rate limit, checked.
	 * @param permits how many permits per period; positive
	 * @param period the period; positive
	 * @param burst how many permits a full limiter grants at once; positive
	 * @throws IllegalArgumentException when a value is not positive, the permits are spaced less than a
	 * microsecond apart, or the burst is above {@link #MAX_BURST}
	 */
	public RateLimit {
		if (permits <= 0) {
			throw new IllegalArgumentException("A rate limit's permits per period must be positive: " + permits);
		}
		if (period == null || period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("A rate limit's period must be positive: " + period);
		}
		if (burst <= 0) {
			throw new IllegalArgumentException("A rate limit's burst must be positive: " + burst);
		}
		if (period.toNanos() / permits < MIN_INTERVAL_NANOS) {
			throw new IllegalArgumentException("A rate limit of " + permits + " per " + period
					+ " spaces permits less than a microsecond apart; use at most 1,000,000 a second");
		}
		if (burst > MAX_BURST) {
			throw new IllegalArgumentException("A rate limit's burst must be at most " + MAX_BURST + ": " + burst);
		}
	}

	/**
	 * @param permits how many permits per period
	 * @param period the period
	 * @return that rate, with a burst of one period's permits
	 */
	public static RateLimit of(long permits, Duration period) {
		return new RateLimit(permits, period, permits);
	}

	/**
	 * @param burst how many permits a full limiter grants at once
	 * @return this rate with that burst
	 */
	public RateLimit withBurst(long burst) {
		return new RateLimit(permits, period, burst);
	}

	/** {@return the spacing between two permits, in microseconds, maybe fractional} */
	public double intervalMicros() {
		return period.toNanos() / 1000.0 / permits;
	}

	@Override
	public String toString() {
		return permits + " per " + period + ", burst " + burst;
	}

}
