package dev.warden.ratelimit;

/**
 * Told of every decision a {@link dev.warden.ratelimit.annotation.RateLimited} call meets, for
 * metrics; every bean of this type is. Called on the calling thread or on Warden's internal
 * threads: implementations must be quick and must not block.
 */
public interface RateLimitListener {

	/** A listener that does nothing. */
	RateLimitListener NONE = new RateLimitListener() {
	};

	/**
	 * A call's permits were granted, or refused.
	 * @param name the annotation's limiter name, without the call's key (few values: fit for a tag)
	 * @param decision the decision, its wait included
	 */
	default void onDecision(String name, RateLimitDecision decision) {
	}

}
