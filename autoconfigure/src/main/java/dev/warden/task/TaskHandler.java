package dev.warden.task;

/**
 * Handles the due tasks of a queue. A task is delivered at least once: make handlers idempotent.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface TaskHandler<T> {

	/**
	 * Handles one delivery. Returning completes the task; throwing schedules another attempt after
	 * a backoff, until the attempts are used up and the task becomes a dead letter.
	 * @param delivery the task
	 * @throws Exception to have the task tried again
	 */
	void handle(Delivery<T> delivery) throws Exception;

}
