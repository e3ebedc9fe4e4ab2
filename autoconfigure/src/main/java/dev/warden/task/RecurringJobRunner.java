package dev.warden.task;

import java.time.Duration;
import java.util.List;

/**
 * Runs recurring jobs: the part of a Warden client that {@code @RecurringTask} needs. The
 * {@link dev.warden.Warden} client is one.
 */
public interface RecurringJobRunner {

	/**
	 * Plans the jobs in Redis and runs, on this instance, the occurrences it claims: each occurrence
	 * runs once, on one of the instances that run the same queue, when Redis's clock says it is due.
	 * @param queue the queue of the occurrences, one per application; not blank nor with braces
	 * @param jobs the jobs this instance defines, with distinct names; plans of other jobs on the
	 * queue are removed
	 * @param misfireThreshold how late an occurrence may start before its job's {@link Misfire}
	 * policy applies
	 * @return the running consumer; closing it stops running occurrences here
	 */
	TaskConsumer runRecurring(String queue, List<RecurringJob> jobs, Duration misfireThreshold);

}
