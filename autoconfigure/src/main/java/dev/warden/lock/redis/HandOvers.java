package dev.warden.lock.redis;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * One client's bookkeeping of releases handed straight to its own waiters: how many times in a
 * row each lock was handed over, so that every {@value #MAX_HAND_OVERS_IN_A_ROW}th release is
 * published for the waiters of other clients instead (they are never starved by one busy client);
 * and, per fair lock, the client's owners waiting for it in the order they began to wait.
 */
final class HandOvers {

	/**
	 * How many times in a row a client hands a lock to one of its own waiters before it releases it
	 * plainly, with a message that wakes waiters elsewhere.
	 */
	static final int MAX_HAND_OVERS_IN_A_ROW = 16;

	// Only locks in a streak of hand-overs: every streak ends with a plain release.
	private final Map<String, Integer> inARow = new ConcurrentHashMap<>();

	private final Map<String, ArrayDeque<String>> fairWaiters = new ConcurrentHashMap<>();

	/** Whether the next release of the lock may be handed to a waiter of this client. */
	boolean mayHandOver(String lockName) {
		return inARow.getOrDefault(lockName, 0) < MAX_HAND_OVERS_IN_A_ROW;
	}

	/** The lock was handed to a waiter of this client. */
	void handedOver(String lockName) {
		inARow.merge(lockName, 1, Integer::sum);
	}

	/** The lock was released plainly (or force-unlocked): a new streak of hand-overs may begin. */
	void releasedPlainly(String lockName) {
		inARow.remove(lockName);
	}

	/** An owner of this client begins to wait for a fair lock. */
	void fairWaiterArrived(String lockName, String ownerId) {
		fairWaiters.compute(lockName, (name, waiting) -> {
			ArrayDeque<String> queue = (waiting != null) ? waiting : new ArrayDeque<>();
			queue.add(ownerId);
			return queue;
		});
	}

	/** An owner of this client stopped waiting for a fair lock (acquired or gave up). */
	void fairWaiterLeft(String lockName, String ownerId) {
		fairWaiters.computeIfPresent(lockName, (name, waiting) -> {
			waiting.remove(ownerId);
			return waiting.isEmpty() ? null : waiting;
		});
	}

	/** The owner of this client that has waited longest for a fair lock, if any. */
	@Nullable String firstFairWaiter(String lockName) {
		String[] first = { null };
		fairWaiters.computeIfPresent(lockName, (name, waiting) -> {
			first[0] = waiting.peekFirst();
			return waiting;
		});
		return first[0];
	}

}
