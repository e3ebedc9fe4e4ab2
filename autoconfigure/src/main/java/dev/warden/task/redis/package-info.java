/**
 * Internal: the Redis implementation of delayed queues, not for use by applications; may change in
 * any release.
 * <p>
 * Lua scripts, the queue, and the dispatcher that claims due tasks and runs their handlers.
 * <p>
 * A queue named {@code q} keeps its keys in one hash slot, {@code warden:task:{q}:...}: {@code due}
 * (zset of due times), {@code tasks} (hash of payloads, the only copy), {@code inflight} (zset of
 * visibility deadlines), {@code attempts}, {@code claims}, {@code errors} and {@code dead}
 * (hashes), and the channel {@code warden:task:{q}:wake}.
 */
@NullMarked
package dev.warden.task.redis;

import org.jspecify.annotations.NullMarked;
