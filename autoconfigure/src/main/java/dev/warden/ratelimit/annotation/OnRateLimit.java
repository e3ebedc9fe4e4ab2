package dev.warden.ratelimit.annotation;

/** What a {@link RateLimited} method does when its limit has no permit left. */
public enum OnRateLimit {

	/** Throws {@link dev.warden.ratelimit.RateLimitExceededException}, which carries the retry-after. */
	THROW,

	/** Does not run: returns {@code null} (an empty {@code Optional}, an empty {@code Mono} or {@code Flux}). */
	SKIP,

	/** Calls the {@link RateLimited#fallbackMethod()} instead. */
	FALLBACK

}
