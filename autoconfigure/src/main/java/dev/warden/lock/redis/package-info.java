/**
 * The Redis implementation of {@link dev.warden.lock.DistributedReentrantLock}: Lua scripts, the watchdog
 * that renews leases, and the waiters woken by release messages.
 */
@NullMarked
package dev.warden.lock.redis;

import org.jspecify.annotations.NullMarked;
