/**
 * Public API: rate limits shared by every instance of an application
 * ({@link dev.warden.ratelimit.DistributedRateLimiter}): a rate, a burst, and one decision per
 * script call, timed by Redis's clock.
 */
@NullMarked
package dev.warden.ratelimit;

import org.jspecify.annotations.NullMarked;
