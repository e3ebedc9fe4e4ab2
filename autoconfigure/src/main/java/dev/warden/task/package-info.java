/**
 * Public API: durable delayed tasks: {@link dev.warden.task.DelayedQueue}, scheduled by id,
 * delivered at least once to exactly one consumer when due, retried with backoff, and kept as dead
 * letters when they cannot succeed.
 */
@NullMarked
package dev.warden.task;

import org.jspecify.annotations.NullMarked;
