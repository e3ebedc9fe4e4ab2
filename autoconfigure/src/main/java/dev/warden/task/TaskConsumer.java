package dev.warden.task;

import java.time.Duration;

/**
 * A running consumer of one queue on this client. Closing it stops claiming tasks and waits for
 * the deliveries under way.
 */
public interface TaskConsumer extends AutoCloseable {

	/** {@return the queue consumed} */
	String queue();

	/**
	 * Stops claiming tasks and waits up to {@code grace} for the deliveries under way; those still
	 * running after it stay in flight and are delivered again after their visibility timeout.
	 * @param grace how long to wait for running handlers
	 * @return whether every running handler finished within the grace period
	 */
	boolean stop(Duration grace);

	/** Stops with the client's shutdown grace period. */
	@Override
	void close();

}
