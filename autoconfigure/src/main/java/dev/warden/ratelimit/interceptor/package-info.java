/**
 * The advice behind {@link dev.warden.ratelimit.annotation.RateLimited}: the parsed annotations,
 * their startup checks and the interceptor.
 */
@NullMarked
package dev.warden.ratelimit.interceptor;

import org.jspecify.annotations.NullMarked;
