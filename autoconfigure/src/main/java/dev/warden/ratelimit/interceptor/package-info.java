/**
 * Internal: the advice behind {@link dev.warden.ratelimit.annotation.RateLimited}, not for use by
 * applications; may change in any release.
 * <p>
 * The parsed annotations, their startup checks and the interceptor.
 */
@NullMarked
package dev.warden.ratelimit.interceptor;

import org.jspecify.annotations.NullMarked;
