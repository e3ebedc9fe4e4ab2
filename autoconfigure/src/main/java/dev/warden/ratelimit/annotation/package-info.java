/**
 * Public API: {@link dev.warden.ratelimit.annotation.RateLimited}: bean methods within a rate limit
 * shared by every instance.
 */
@NullMarked
package dev.warden.ratelimit.annotation;

import org.jspecify.annotations.NullMarked;
