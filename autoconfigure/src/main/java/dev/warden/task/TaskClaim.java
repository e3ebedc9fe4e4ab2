package dev.warden.task;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim of the task a handler is running. A consumer keeps the claims of its running handlers
 * alive; a claim is lost when the task was delivered again elsewhere meanwhile (its visibility
 * deadline lapsed while its extensions could not reach Redis) or purged. A handler that should stop
 * then asks {@link #isLost()} or registers {@link #onLost(Runnable)}; the outcome of a handler whose
 * claim was lost is not recorded. A Kotlin {@code suspend} handler is cancelled when its claim is
 * lost.
 */
public final class TaskClaim {

	private static final Logger logger = LoggerFactory.getLogger(TaskClaim.class);

	private static final ThreadLocal<@Nullable TaskClaim> CURRENT = new ThreadLocal<>();

	private final String queue;

	private final String id;

	// Guarded by this.
	private boolean lost;

	// Guarded by this.
	private final List<Runnable> onLost = new ArrayList<>(1);

	private TaskClaim(String queue, String id) {
		this.queue = queue;
		this.id = id;
	}

	/** {@return the claim of the task the calling thread's handler runs, or {@code null} outside a handler} */
	public static @Nullable TaskClaim current() {
		return CURRENT.get();
	}

	/**
	 * Makes a claim current on the calling thread until the returned scope is closed. For the
	 * consumer that runs the handler.
	 * @param queue the task's queue
	 * @param id the task's id
	 * @return the claim
	 */
	public static TaskClaim enter(String queue, String id) {
		TaskClaim claim = new TaskClaim(queue, id);
		CURRENT.set(claim);
		return claim;
	}

	/** Ends the claim's time as the calling thread's current one. For the consumer. */
	public void exit() {
		if (CURRENT.get() == this) {
			CURRENT.remove();
		}
	}

	/** {@return the task's queue} */
	public String queue() {
		return queue;
	}

	/** {@return the task's id} */
	public String id() {
		return id;
	}

	/** {@return whether the claim was lost: the handler's work is no longer this consumer's} */
	public synchronized boolean isLost() {
		return lost;
	}

	/**
	 * Runs {@code action} when the claim is lost, on one of Warden's threads (at once, on the calling
	 * thread, when it is lost already). It must be quick and must not block.
	 * @param action what to do, such as cancelling the handler's work
	 */
	public void onLost(Runnable action) {
		synchronized (this) {
			if (!lost) {
				onLost.add(action);
				return;
			}
		}
		run(action);
	}

	/** Marks the claim lost and runs what was registered. For the consumer. */
	public void lose() {
		List<Runnable> actions;
		synchronized (this) {
			if (lost) {
				return;
			}
			lost = true;
			actions = List.copyOf(onLost);
			onLost.clear();
		}
		actions.forEach(this::run);
	}

	private void run(Runnable action) {
		try {
			action.run();
		}
		catch (RuntimeException ex) {
			logger.warn("An action on the lost claim of task '{}' of queue '{}' failed", id, queue, ex);
		}
	}

	@Override
	public String toString() {
		return "TaskClaim[" + queue + "/" + id + (isLost() ? ", lost]" : "]");
	}

}
