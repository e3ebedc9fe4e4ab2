/**
 * The Redis implementation of Warden's locks and synchronizers: Lua scripts, the watchdog
 * that renews leases, and the waiters woken by release messages.
 */
@NullMarked
package dev.warden.lock.redis;

import org.jspecify.annotations.NullMarked;
