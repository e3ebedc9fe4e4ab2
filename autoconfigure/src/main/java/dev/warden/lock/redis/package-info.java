/**
 * Internal: the Redis implementation of Warden's locks and synchronizers, not for use by
 * applications; may change in any release.
 * <p>
 * Lua scripts, the watchdog that renews leases, and the waiters woken by release messages.
 */
@NullMarked
package dev.warden.lock.redis;

import org.jspecify.annotations.NullMarked;
