package dev.warden.task;

/**
 * Where delayed queues come from: the part of a Warden client that {@code @DelayedTask} needs. The
 * {@link dev.warden.Warden} client is one; the annotation machinery depends on this interface
 * alone, so it can be understood, and its own logic tested, without the engine behind it.
 */
public interface DelayedQueueFactory {

	/**
	 * Returns the delayed queue of that name with payloads stored by {@code codec}.
	 * @param name the queue name; must not be blank nor contain braces
	 * @param codec turns payloads into stored text and back
	 * @param <T> the payload type
	 * @return a lightweight view of the queue
	 */
	<T> DelayedQueue<T> getDelayedQueue(String name, PayloadCodec<T> codec);

	/**
	 * Stops every consumer started on this factory's queues: no new claims, then waits up to the
	 * shutdown grace period for the handlers under way. Handlers still running then stay in flight
	 * and are delivered again.
	 * @return whether every running handler finished in time
	 */
	boolean stopConsumers();

}
