package dev.warden.ratelimit;

import java.time.Duration;

/**
 * What a {@link DistributedRateLimiter} decided about a request for permits.
 *
 * @param granted whether the permits were granted
 * @param delay when granted, how long the caller waits before using them (zero when they were
 * available at once; positive when they were reserved ahead, within the wait it accepted); when
 * refused, how long until they will be available: the retry-after
 * @param available how many permits the limiter has left after the decision
 */
public record RateLimitDecision(boolean granted, Duration delay, long available) {

	/** {@return the retry-after of a refusal; zero for a grant} */
	public Duration retryAfter() {
		return granted ? Duration.ZERO : delay;
	}

}
