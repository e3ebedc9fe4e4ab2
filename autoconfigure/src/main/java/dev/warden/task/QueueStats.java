package dev.warden.task;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a delayed queue holds, read from Redis in one consistent read.
 *
 * @param queue the queue's name
 * @param pending tasks waiting for their due time or for a consumer
 * @param inFlight tasks a consumer has claimed and not yet finished (including those claimed ahead
 * of their due time)
 * @param deadLetters tasks given up on
 * @param nextDueAt when the first pending task is due, by Redis's clock; {@code null} when none is
 * pending
 */
public record QueueStats(String queue, long pending, long inFlight, long deadLetters, @Nullable Instant nextDueAt) {
}
