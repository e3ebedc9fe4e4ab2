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

	/**
	 * How a delivery ended. The meters count fewer kinds: a delivery whose handler returned counts
	 * in {@code warden.task.completed}; one whose handler threw, or whose payload could not be read,
	 * counts in {@code warden.task.failed} (and {@code warden.task.dead} when its task became a dead
	 * letter); the timer {@code warden.task.duration} and the observation {@code warden.task.run} tag
	 * them {@code outcome=completed} or {@code outcome=failed}. Each constant says where it counts.
	 */
	public enum Outcome {

		/**
		 * The handler returned: the task is done. Meters: {@code warden.task.completed},
		 * {@code warden.task.duration} and {@code warden.task.run} with {@code outcome=completed}.
		 */
		COMPLETED,

		/**
		 * The handler threw: the task is delivered again after its backoff. Meters:
		 * {@code warden.task.failed}, {@code warden.task.duration} and {@code warden.task.run} with
		 * {@code outcome=failed}.
		 */
		RETRIED,

		/**
		 * The handler threw on the last attempt, or the payload could not be read: a dead letter now.
		 * Meters: {@code warden.task.failed} and {@code warden.task.dead}, {@code warden.task.duration}
		 * and {@code warden.task.run} with {@code outcome=failed}. A task written by a later version
		 * and left unread for longer than the newer-format grace also ends here, counted as
		 * {@link #LEFT} is.
		 */
		DEAD_LETTER,

		/**
		 * The delivery failed, but it was no longer the task's current one (the task was cancelled,
		 * replaced or delivered again meanwhile), so its failure changed nothing. Meters: a failure of
		 * the handler or of the payload counts in {@code warden.task.failed}, {@code warden.task.duration}
		 * and {@code warden.task.run} with {@code outcome=failed}; a task of a later version is counted
		 * as {@link #LEFT} is.
		 */
		SUPERSEDED,

		/**
		 * Redis could not be told how the delivery ended: the task stays claimed and is delivered
		 * again once its visibility timeout is over. Meters: no counter; {@code warden.task.run} with
		 * {@code outcome=failed}, unless the task was of a later stored format (see {@link #LEFT}).
		 */
		UNRECORDED,

		/**
		 * The task was written by a later version than this instance reads (a later payload version,
		 * a newer stored format): it was not run here and went back in its queue, its attempt not
		 * spent, for an instance that reads it ({@link NewerTaskFormatException}). Meters: no counter;
		 * {@code warden.task.run} with {@code outcome=failed} when only the payload's version is later
		 * (a task of a later stored format is left before its observation starts).
		 */
		LEFT

	}

}
