package dev.warden.lock.redis;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.warden.redis.ChannelListener;

/**
 * This client's waiters for one lock, woken by the lock's release messages.
 * <p>
 * Message {@code 0} (one lock released) wakes one waiter; {@code 1} (read holds released) wakes
 * all. A release that arrives while no waiter is asleep is remembered, so a waiter that goes to
 * sleep just after it retries at once instead of sleeping through it. A woken waiter always
 * retries, so a wake-up is never lost to a waiter that then gives up.
 */
final class LockWaiters implements ChannelListener {

	static final String RELEASED_MESSAGE = "0";

	static final String READERS_RELEASED_MESSAGE = "1";

	private static final CompletableFuture<Void> ALREADY_RELEASED = CompletableFuture.completedFuture(null);

	private final ArrayDeque<CompletableFuture<Void>> sleeping = new ArrayDeque<>();

	private boolean releaseMissed;

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

	@Override
	public void onMessage(String message) {
		if (READERS_RELEASED_MESSAGE.equals(message)) {
			List<CompletableFuture<Void>> all;
			synchronized (this) {
				all = List.copyOf(sleeping);
				sleeping.clear();
				releaseMissed = true;
			}
			all.forEach(wakeUp -> wakeUp.complete(null));
			return;
		}
		CompletableFuture<Void> woken;
		synchronized (this) {
			woken = sleeping.poll();
			if (woken == null) {
				releaseMissed = true;
				return;
			}
		}
		woken.complete(null);
	}

}
