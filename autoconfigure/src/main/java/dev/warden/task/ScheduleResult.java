package dev.warden.task;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What {@link DelayedQueue#schedule} did.
 *
 * @param status whether the task was scheduled, replaced, or already pending
 * @param dueAt when the task is due (by Redis's clock); {@code null} when an already pending task
 * is being handled right now, or when the schedule waits for its transaction to commit
 */
public record ScheduleResult(Status status, @Nullable Instant dueAt) {

	/** The outcome of a schedule call. */
	public enum Status {

		/** A new task was stored. */
		SCHEDULED,

		/** A task with that id existed and was overwritten (with {@link ScheduleOption#REPLACE}). */
		REPLACED,

		/** A task with that id is pending or being handled; it was kept as it is. */
		ALREADY_PENDING,

		/**
		 * The call was made inside a transaction: the schedule is made when, and if, it commits, with
		 * its delay counted from then. Nothing is known yet of a task of the same id, and the due
		 * time is {@code null}.
		 */
		PENDING_COMMIT

	}

	/**
	 * Whether a task with this payload and due time is now pending because of this call: {@code false}
	 * for an already pending task, and for a schedule that waits for its transaction to commit.
	 * @return whether this call stored the task
	 */
	public boolean stored() {
		return status == Status.SCHEDULED || status == Status.REPLACED;
	}

}
