/**
 * Warden's Redis engine: Lua scripts run with {@code EVALSHA}, the shared command connection and
 * the shared pub/sub connection of one client. Internal; its types may change in any release.
 */
@NullMarked
package dev.warden.redis;

import org.jspecify.annotations.NullMarked;
