package dev.warden.task;

/**
 * Decides whether a write to a delayed queue is made at once or held until something else
 * happens, and holds it: how writes made inside an application's transaction take effect only when
 * it commits. Warden's Spring Boot auto-configuration supplies one that follows Spring-managed
 * transactions through an outbox table (see {@code dev.warden.task.transaction.TaskOutbox}).
 * <p>
 * Called on the thread that schedules, cancels or reschedules; a write given to {@link #defer} must
 * eventually reach the queue through {@link dev.warden.Warden#applyTaskWrites}, or be dropped
 * because what it belonged to did not happen.
 */
public interface TaskWriteDeferral {

	/** Makes every write at once. */
	TaskWriteDeferral NONE = new TaskWriteDeferral() {

		@Override
		public boolean defers(String queue) {
			return false;
		}

		@Override
		public void defer(TaskWrite write) {
			throw new IllegalStateException("Writes are not deferred");
		}

	};

	/**
	 * Whether a write to {@code queue} made now, on this thread, is deferred.
	 * @param queue the queue's name
	 * @return {@code true} to hand the write to {@link #defer}
	 */
	boolean defers(String queue);

	/**
	 * Takes a write to make later.
	 * @param write the write
	 * @throws RuntimeException when the write cannot be held: the call that made it fails with it
	 */
	void defer(TaskWrite write);

}
