package dev.warden.ratelimit;

import java.time.Duration;

import dev.warden.WardenException;

/**
 * A {@code @RateLimited} method was called when its limit had no permit left (within its wait):
 * the method did not run. In a Spring MVC or WebFlux application it becomes a 429 response with
 * {@code Retry-After}, as RFC 9457 problem details, unless
 * {@code warden.rate-limit.problem-details.enabled} is {@code false}.
 */
public class RateLimitExceededException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * The limiter's name, its key included.
	 */
	private final String limiter;

	private final transient Duration retryAfter;

	/**
	 * @param limiter the limiter's name, its key included
	 * @param limit the limit
	 * @param retryAfter how long until a permit will be available
	 */
	public RateLimitExceededException(String limiter, RateLimit limit, Duration retryAfter) {
		super("Rate limit of '" + limiter + "' (" + limit + ") reached; a permit is available again in "
				+ retryAfter.toMillis() + " ms");
		this.limiter = limiter;
		this.retryAfter = retryAfter;
	}

	/** {@return the limiter's name, its key included} */
	public String getLimiter() {
		return limiter;
	}

	/** {@return how long until a permit will be available} */
	public Duration getRetryAfter() {
		return retryAfter;
	}

}
