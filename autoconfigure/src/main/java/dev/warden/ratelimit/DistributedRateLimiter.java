package dev.warden.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A rate limit shared by every instance of an application: at most {@link RateLimit#permits()} per
 * {@link RateLimit#period()}, evenly spaced, and {@link RateLimit#burst()} at once.
 * <p>
 * Each decision is one script call, timed by Redis's clock (the generic cell rate algorithm: the
 * limiter keeps the time at which it is full again), so a hot limiter costs one round trip per
 * decision however many callers contend for it, and clients' clocks never matter. A caller that
 * accepts a wait has its permits reserved at once and waits exactly as long as Redis says, without
 * polling. The limit travels with each call: a limiter used with another rate keeps the permits
 * in use, re-expressed at the new rate. The limiter's one key expires once the limiter is full
 * again, so memory stays bounded however many names are used.
 * <p>
 * Obtained from {@code Warden.getRateLimiter(name, limit)}.
 */
public interface DistributedRateLimiter {

	/** {@return the limiter's name} */
	String getName();

	/** {@return the rate this handle asks for} */
	RateLimit getLimit();

	/**
	 * Takes one permit if one is available now.
	 * @return whether it was taken
	 */
	default boolean tryAcquire() {
		return tryAcquire(1);
	}

	/**
	 * Takes {@code permits} if they are available now; takes nothing otherwise.
	 * @param permits how many, from 1 to the burst
	 * @return whether they were taken
	 */
	default boolean tryAcquire(int permits) {
		return decide(permits, Duration.ZERO).granted();
	}

	/**
	 * Takes {@code permits} if they are available within {@code maxWait}, reserving them at once and
	 * then waiting until their time.
	 * @param permits how many, from 1 to the burst
	 * @param maxWait the longest wait accepted
	 * @return whether they were taken (after the wait); false at once when they would come later
	 * @throws InterruptedException when interrupted while waiting: the reserved permits are spent
	 */
	boolean tryAcquire(int permits, Duration maxWait) throws InterruptedException;

	/**
	 * Takes {@code permits}, waiting as long as the rate makes it.
	 * @param permits how many, from 1 to the burst
	 * @throws InterruptedException when interrupted while waiting: the reserved permits are spent
	 */
	default void acquire(int permits) throws InterruptedException {
		tryAcquire(permits, Duration.ofNanos(Long.MAX_VALUE));
	}

	/**
	 * Decides, without waiting: grants {@code permits} when they are available within
	 * {@code maxWait} (reserved at once; the caller waits {@link RateLimitDecision#delay()} before
	 * using them), refuses otherwise and says when they will be.
	 * @param permits how many, from 1 to the burst
	 * @param maxWait the longest wait the caller accepts; zero for permits available now
	 * @return the decision
	 */
	RateLimitDecision decide(int permits, Duration maxWait);

	/**
	 * Like {@link #decide(int, Duration)}, without blocking.
	 * @param permits how many, from 1 to the burst
	 * @param maxWait the longest wait the caller accepts; zero for permits available now
	 * @return a future that completes with the decision
	 */
	CompletableFuture<RateLimitDecision> decideAsync(int permits, Duration maxWait);

	/**
	 * Like {@link #tryAcquire(int, Duration)}, without blocking: completes once the permits are
	 * the caller's (after the wait, on Warden's scheduler thread), or with {@code false} at once.
	 * @param permits how many, from 1 to the burst
	 * @param maxWait the longest wait the caller accepts
	 * @return a future that completes with whether the permits were acquired
	 */
	CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration maxWait);

	/**
	 * How long until {@code permits} will be available, taking nothing.
	 * @param permits how many, from 1 to the burst
	 * @return zero when they are available now
	 */
	Duration timeUntilAvailable(int permits);

	/** {@return how many permits are available now, taking nothing} */
	long availablePermits();

	/**
	 * Makes the limiter full again, whatever was taken.
	 * @return whether it had permits in use
	 */
	boolean reset();

}
