package dev.warden.task;

import java.util.Objects;

import dev.warden.WardenNames;

/**
 * A job that runs on one instance at each of its occurrences.
 *
 * @param name the job's name, unique among the jobs of its queue: not blank, without braces or
 * {@code @}
 * @param schedule when its occurrences are due
 * @param misfire what an occurrence that starts later than the misfire threshold does
 * @param action what runs; an exception fails the occurrence, which is then retried and, after its
 * last attempt, becomes a dead letter, while the job's next occurrence is planned as usual
 */
public record RecurringJob(String name, RecurringSchedule schedule, Misfire misfire, Action action) {

	/** What a job runs. */
	@FunctionalInterface
	public interface Action {

		/**
		 * Runs the job once.
		 * @throws Exception to fail this occurrence
		 */
		void run() throws Exception;

	}

	/**
	 * A job, checked.
	 * @param name the job's name, unique among the jobs of its queue: not blank, without braces or
	 * {@code @}
	 * @param schedule when its occurrences are due
	 * @param misfire what an occurrence that starts later than the misfire threshold does
	 * @param action what runs; an exception fails the occurrence, which is then retried and, after its
	 * last attempt, becomes a dead letter, while the job's next occurrence is planned as usual
	 * @throws IllegalArgumentException when the name is blank, holds braces or {@code @}, or is not safe
	 * to store
	 */
	public RecurringJob {
		if (name == null || name.isBlank() || name.contains("{") || name.contains("}") || name.contains("@")) {
			throw new IllegalArgumentException("A recurring job's name must not be blank nor contain braces or '@': "
					+ ((name != null) ? WardenNames.shown(name) : null));
		}
		// Before it reaches a key, a field or a log line: no control characters, a bounded length.
		WardenNames.requireSafe(name, "recurring job name");
		Objects.requireNonNull(schedule, "schedule");
		Objects.requireNonNull(misfire, "misfire");
		Objects.requireNonNull(action, "action");
	}

	/**
	 * {@return the id of its occurrence due at {@code due}: {@code <name>@<epoch millis>}}
	 * @param due the occurrence's due time, in epoch milliseconds
	 */
	public String occurrenceId(long due) {
		return occurrenceId(name, due);
	}

	/**
	 * {@return the id of the occurrence of the job {@code name} due at {@code due}}
	 * @param name the job's name
	 * @param due the occurrence's due time, in epoch milliseconds
	 */
	public static String occurrenceId(String name, long due) {
		return name + "@" + due;
	}

}
