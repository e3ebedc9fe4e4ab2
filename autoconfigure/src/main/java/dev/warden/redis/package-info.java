/**
 * Internal: Warden's Redis engine, not for use by applications; may change in any release.
 * <p>
 * Lua scripts run with {@code EVALSHA}, the shared command connection and the shared pub/sub
 * connection of one client.
 */
@NullMarked
package dev.warden.redis;

import org.jspecify.annotations.NullMarked;
