package dev.warden.task;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a delayed queue holds, read from Redis in one consistent read.
 *
 * @param queue the queue's name
 * @param pending tasks waiting for their due time or for a consumer, deferred ones included
 * @param inFlight tasks a consumer has claimed and not yet finished (including those claimed ahead
 * of their due time)
 * @param deadLetters tasks given up on
 * @param nextDueAt when the next pending task falls due, by Redis's clock: the first due time, or
 * the first time a key of the queue's {@link TaskLimits} has room for a deferred task when that
 * comes first; {@code null} when none is pending or only deferred tasks wait for running ones
 * @param deferred pending tasks that were due and wait for their key to be under the queue's
 * {@link TaskLimits}
 */
public record QueueStats(String queue, long pending, long inFlight, long deadLetters, @Nullable Instant nextDueAt,
		long deferred) {

	/**
	 * The counts of a queue without deferred tasks.
	 * @param queue the queue's name
	 * @param pending tasks waiting for their due time or for a consumer
	 * @param inFlight tasks a consumer has claimed and not yet finished
	 * @param deadLetters tasks given up on
	 * @param nextDueAt when the first pending task is due; {@code null} when none is pending
	 */
	public QueueStats(String queue, long pending, long inFlight, long deadLetters, @Nullable Instant nextDueAt) {
		this(queue, pending, inFlight, deadLetters, nextDueAt, 0);
	}

}
