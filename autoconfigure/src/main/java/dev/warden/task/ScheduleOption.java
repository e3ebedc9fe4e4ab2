package dev.warden.task;

/** Options of {@link DelayedQueue#schedule}. */
public enum ScheduleOption {

	/**
	 * Overwrite a task of the same id that is pending or being handled (its handler's outcome is
	 * then ignored), instead of keeping it.
	 */
	REPLACE,

	/**
	 * Write now, even inside a transaction that the application's {@link TaskWriteDeferral} follows
	 * (by default a schedule made inside a Spring-managed transaction is stored when it commits).
	 */
	IMMEDIATE

}
