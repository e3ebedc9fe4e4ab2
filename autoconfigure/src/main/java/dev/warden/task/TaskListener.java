package dev.warden.task;

/**
 * Told about the delayed tasks of one {@link dev.warden.Warden} client, for metrics: what it
 * scheduled, and how the deliveries it ran ended. Called on the scheduling thread or a task handler
 * thread: implementations must be quick and must not block.
 */
public interface TaskListener {

	/** A listener that does nothing. */
	TaskListener NONE = new TaskListener() {
	};

	/**
	 * Tasks were stored in a queue (new, replaced, or rescheduled by a schedule call).
	 * @param queue the queue's name
	 * @param count how many
	 */
	default void onScheduled(String queue, int count) {
	}

	/**
	 * This client started consuming a queue.
	 * @param queue the queue's name
	 */
	default void onConsumerStarted(String queue) {
	}

	/**
	 * A delivery starts: its handler is about to be called.
	 * @param queue the queue's name
	 * @param latenessNanos how long after its due time it starts, by Redis's clock
	 */
	default void onStarted(String queue, long latenessNanos) {
	}

	/**
	 * A delivery's handler returned.
	 * @param queue the queue's name
	 * @param durationNanos how long the handler ran
	 */
	default void onCompleted(String queue, long durationNanos) {
	}

	/**
	 * A delivery failed: its handler threw, or its payload could not be read.
	 * @param queue the queue's name
	 * @param durationNanos how long the delivery ran
	 * @param dead whether the task became a dead letter (otherwise it is retried after its backoff)
	 */
	default void onFailed(String queue, long durationNanos, boolean dead) {
	}

	/**
	 * A due task did not start because its key was at the queue's {@link TaskLimits}: it waits,
	 * deferred, until its key has room, without counting an attempt.
	 * @param queue the queue's name
	 * @param reason {@code concurrency} (as many tasks of its key run as may) or {@code rate} (its
	 * key started as many as its rate allows)
	 */
	default void onDeferred(String queue, String reason) {
	}

	/**
	 * A delivery ended, told with the task's identity and payload, after {@link #onCompleted} or
	 * {@link #onFailed}: for listeners that keep a record of what ran, such as a test's.
	 * @param delivery how it ended
	 */
	default void onEnded(EndedDelivery delivery) {
	}

}
