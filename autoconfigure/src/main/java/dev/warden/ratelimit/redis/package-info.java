/**
 * The Redis implementation of Warden's rate limiters: one key and one Lua script.
 */
@NullMarked
package dev.warden.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
