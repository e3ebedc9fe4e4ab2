package dev.warden.lock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

import dev.warden.redis.ChannelListener;

/**
 * This client's waiters on one channel (a lock's, a semaphore's, a latch's), woken by its
 * messages.
 * <p>
 * How many waiters a message wakes depends on the synchronizer: for a lock, {@code 0} (one lock
 * released) wakes one waiter and {@code 1} (read holds released) wakes all. A release that arrives
 * while no waiter is asleep is remembered, so a waiter that goes to sleep just after it retries at
 * once instead of sleeping through it. A woken waiter always retries, so a wake-up is never lost
 * to a waiter that then gives up.
 */
final class LockWaiters implements ChannelListener {

	/** Wakes every waiter. */
	static final int ALL = Integer.MAX_VALUE;


	static final String READERS_RELEASED_MESSAGE = "1";

	/** A lock's messages: {@code 1} (read holds released) wakes all, anything else one. */
	static final ToIntFunction<String> LOCK_RELEASES = message -> READERS_RELEASED_MESSAGE.equals(message) ? ALL : 1;

	private static final CompletableFuture<Void> ALREADY_RELEASED = CompletableFuture.completedFuture(null);

	private final ArrayDeque<CompletableFuture<Void>> sleeping = new ArrayDeque<>();

	private final ToIntFunction<String> wakeCount;

	private boolean releaseMissed;

	/** Waiters of a lock. */
	LockWaiters() {
		this(LOCK_RELEASES);
	}

	/**
	 * @param wakeCount how many waiters a message wakes ({@link #ALL} for all, 0 for none)
	 */
	LockWaiters(ToIntFunction<String> wakeCount) {
		this.wakeCount = wakeCount;
	}

	/**
	 * A future that the next release completes; already complete when a release arrived while no
	 * waiter was asleep.
	 */
	synchronized CompletableFuture<Void> nextRelease() {
		if (releaseMissed) {
			releaseMissed = false;
			return ALREADY_RELEASED;
		}
		CompletableFuture<Void> wakeUp = new CompletableFuture<>();
		sleeping.add(wakeUp);
		return wakeUp;
	}

	/**
	 * The waiter stops waiting for {@code wakeUp} (it timed out or was interrupted).
	 * @return whether a release had already claimed it, in which case the waiter should retry
	 */
	synchronized boolean withdraw(CompletableFuture<Void> wakeUp) {
		return !sleeping.remove(wakeUp);
	}

	/** Passes on a wake-up that a waiter received but will not act on. */
	void wakeOne() {
		wake(1);
	}

	@Override
	public void onMessage(String message) {
		wake(wakeCount.applyAsInt(message));
	}

	private void wake(int count) {
		if (count <= 0) {
			return;
		}
		List<CompletableFuture<Void>> woken = new ArrayList<>();
		synchronized (this) {
			while (woken.size() < count && !sleeping.isEmpty()) {
				woken.add(sleeping.poll());
			}
			if (woken.size() < count) {
				releaseMissed = true;
			}
		}
		woken.forEach(wakeUp -> wakeUp.complete(null));
	}

}
