package dev.warden.task;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One write to a delayed queue, as a {@link TaskWriteDeferral} holds it until it may be made: a
 * schedule with its payload already encoded, a cancel, or a reschedule. A write made later by any
 * client has the effect the original call would have had then.
 *
 * @param kind what the write does
 * @param queue the queue's name
 * @param taskId the task's id
 * @param payload the payload as stored (JSON), for a schedule; otherwise {@code null}
 * @param delayMillis the delay counted from when the write is made, or -1 when {@code dueAtMillis}
 * gives the due time
 * @param dueAtMillis the due time in epoch milliseconds, or -1 when {@code delayMillis} gives it
 * @param replace for a schedule, whether it overwrites a task of the same id
 */
public record TaskWrite(Kind kind, String queue, String taskId, @Nullable String payload, long delayMillis,
		long dueAtMillis, boolean replace) {

	/** What a write does. */
	public enum Kind {

		/** Stores a task (or keeps a pending one of the same id, unless it replaces it). */
		SCHEDULE,

		/** Cancels a pending task. */
		CANCEL,

		/** Moves a pending task to a new due time. */
		RESCHEDULE

	}

	/**
	 * A write, checked.
	 * @param kind what the write does
	 * @param queue the queue's name
	 * @param taskId the task's id
	 * @param payload the payload as stored (JSON), for a schedule; otherwise {@code null}
	 * @param delayMillis the delay counted from when the write is made, or -1 when {@code dueAtMillis}
	 * gives the due time
	 * @param dueAtMillis the due time in epoch milliseconds, or -1 when {@code delayMillis} gives it
	 * @param replace for a schedule, whether it overwrites a task of the same id
	 * @throws IllegalArgumentException when a schedule has no payload, or a schedule or reschedule has
	 * both or neither of a delay and a due time
	 */
	public TaskWrite {
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(queue, "queue");
		Objects.requireNonNull(taskId, "taskId");
		if (kind == Kind.SCHEDULE && payload == null) {
			throw new IllegalArgumentException("A schedule carries its payload");
		}
		if (kind != Kind.CANCEL && (delayMillis < 0) == (dueAtMillis < 0)) {
			throw new IllegalArgumentException("A schedule or reschedule has either a delay or a due time: "
					+ delayMillis + ", " + dueAtMillis);
		}
	}

	/**
	 * A schedule of an encoded payload, due after a delay or at a time (the other one -1).
	 * @param queue the queue's name
	 * @param taskId the task's id
	 * @param payload the payload as stored (JSON)
	 * @param delayMillis the delay counted from when the write is made, or -1
	 * @param dueAtMillis the due time in epoch milliseconds, or -1
	 * @param replace whether it overwrites a task of the same id
	 * @return the write
	 */
	public static TaskWrite schedule(String queue, String taskId, String payload, long delayMillis, long dueAtMillis,
			boolean replace) {
		return new TaskWrite(Kind.SCHEDULE, queue, taskId, payload, delayMillis, dueAtMillis, replace);
	}

	/**
	 * A cancel.
	 * @param queue the queue's name
	 * @param taskId the task's id
	 * @return the write
	 */
	public static TaskWrite cancel(String queue, String taskId) {
		return new TaskWrite(Kind.CANCEL, queue, taskId, null, -1, -1, false);
	}

	/**
	 * A reschedule, after a delay or at a time (the other one -1).
	 * @param queue the queue's name
	 * @param taskId the task's id
	 * @param delayMillis the delay counted from when the write is made, or -1
	 * @param dueAtMillis the due time in epoch milliseconds, or -1
	 * @return the write
	 */
	public static TaskWrite reschedule(String queue, String taskId, long delayMillis, long dueAtMillis) {
		return new TaskWrite(Kind.RESCHEDULE, queue, taskId, null, delayMillis, dueAtMillis, false);
	}

}
