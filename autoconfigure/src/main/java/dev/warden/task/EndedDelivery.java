package dev.warden.task;

import org.jspecify.annotations.Nullable;

/**
 * How one delivery of a task ended, as {@link TaskListener#onEnded(EndedDelivery)} is told.
 *
 * @param queue the queue's name
 * @param id the task's id
 * @param attempt which delivery of the task it was, from 1
 * @param payload the payload as stored (for a {@code @DelayedTask} method, its arguments' JSON)
 * @param outcome how it ended
 * @param failure what the handler threw, or why the payload could not be read; {@code null} when
 * the handler returned
 */
public record EndedDelivery(String queue, String id, int attempt, String payload, Outcome outcome,
		@Nullable Throwable failure) {

	/** How a delivery ended. */
	public enum Outcome {

		/** The handler returned: the task is done. */
		COMPLETED,

		/** The handler threw: the task is delivered again after its backoff. */
		RETRIED,

		/** The handler threw on the last attempt, or the payload could not be read: a dead letter now. */
		DEAD_LETTER,

		/**
		 * The delivery failed, but it was no longer the task's current one (the task was cancelled,
		 * replaced or delivered again meanwhile), so its failure changed nothing.
		 */
		SUPERSEDED,

		/**
		 * Redis could not be told how the delivery ended: the task stays claimed and is delivered
		 * again once its visibility timeout is over.
		 */
		UNRECORDED,

		/**
		 * The task was written by a later version than this instance reads (a later payload version,
		 * a newer stored format): it was not run here and went back in its queue, its attempt not
		 * spent, for an instance that reads it ({@link NewerTaskFormatException}).
		 */
		LEFT

	}

}
