/**
 * Internal: the Redis implementation of Warden's rate limiters, not for use by applications; may
 * change in any release.
 * <p>
 * One key and one Lua script.
 */
@NullMarked
package dev.warden.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
