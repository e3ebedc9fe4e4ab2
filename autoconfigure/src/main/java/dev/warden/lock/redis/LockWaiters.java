package dev.warden.lock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

import dev.warden.redis.ChannelListener;
import org.jspecify.annotations.Nullable;

/**
 * This client's waiters on one channel (a lock's, a semaphore's, a latch's), woken by its
 * messages, in the order they went to sleep.
 * <p>
 * How many waiters a message wakes depends on the synchronizer: for a lock, {@code 0} (one lock
 * released) wakes one waiter and {@code 1} (read holds released) wakes all. A release that arrives
 * while no waiter is asleep is remembered, so a waiter that goes to sleep just after it retries at
 * once instead of sleeping through it. A woken waiter always retries, so a wake-up is never lost
 * to a waiter that then gives up.
 * <p>
 * A waiter of a reentrant lock may also offer itself as a {@link Successor}: a release by this
 * client then {@linkplain #claimSuccessor() claims} the first such waiter and hands the lock to it
 * in the release script itself, and completes its wake-up with the fencing token it received.
 */
final class LockWaiters implements ChannelListener {

	/** Wakes every waiter. */
	static final int ALL = Integer.MAX_VALUE;

	static final String READERS_RELEASED_MESSAGE = "1";

	/** A lock's messages: {@code 1} (read holds released) wakes all, anything else one. */
	static final ToIntFunction<String> LOCK_RELEASES = message -> READERS_RELEASED_MESSAGE.equals(message) ? ALL : 1;

	private final ArrayDeque<Sleeper> sleeping = new ArrayDeque<>();

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
	 * A waiter that can take over a lock from a release by this client.
	 *
	 * @param ownerId the waiting owner, which holds no hold of the lock
	 * @param leaseMillis the lease it asked for
	 * @param withToken whether it takes a fencing token
	 */
	record Successor(String ownerId, long leaseMillis, boolean withToken) {
	}

	/**
	 * One waiter's sleep. Its wake-up completes with {@code null} when the waiter should retry (a
	 * message, a hand-over that did not happen, or one whose outcome is unknown), or with the
	 * fencing token when the lock was handed to it.
	 */
	static final class Sleeper {

		final CompletableFuture<@Nullable Long> wakeUp;

		final @Nullable Successor successor;

		// Guarded by the waiters' monitor.
		private boolean withdrawn;

		private Sleeper(CompletableFuture<@Nullable Long> wakeUp, @Nullable Successor successor) {
			this.wakeUp = wakeUp;
			this.successor = successor;
		}

	}

	/**
	 * Goes to sleep until the next release; already woken when a release arrived while no waiter
	 * was asleep.
	 * @param successor what the waiter can take a hand-over as, or {@code null} when it cannot
	 */
	synchronized Sleeper sleep(@Nullable Successor successor) {
		if (releaseMissed) {
			releaseMissed = false;
			return new Sleeper(CompletableFuture.completedFuture(null), successor);
		}
		Sleeper sleeper = new Sleeper(new CompletableFuture<>(), successor);
		sleeping.add(sleeper);
		return sleeper;
	}

	/**
	 * The waiter stops sleeping (it timed out or was interrupted).
	 * @return {@code false} when it left; {@code true} when a release had already claimed it, in
	 * which case its wake-up completes soon (with a hand-over's outcome, or {@code null} to retry)
	 */
	synchronized boolean withdraw(Sleeper sleeper) {
		if (sleeping.remove(sleeper)) {
			return false;
		}
		sleeper.withdrawn = true;
		return true;
	}

	/**
	 * Claims the first waiter that can take the lock over.
	 * @return the claimed waiter, no longer asleep, or {@code null} when none can
	 */
	synchronized @Nullable Sleeper claimSuccessor() {
		for (Iterator<Sleeper> it = sleeping.iterator(); it.hasNext();) {
			Sleeper sleeper = it.next();
			if (sleeper.successor != null) {
				it.remove();
				return sleeper;
			}
		}
		return null;
	}

	/**
	 * A claimed waiter did not get the lock (it is still held by the releasing owner, that owner
	 * held nothing, or the waiter was not next): it goes back to sleep at the head, or retries when
	 * it stopped waiting meanwhile or a release message arrived while it was claimed.
	 */
	void giveBack(Sleeper sleeper) {
		synchronized (this) {
			if (!sleeper.withdrawn && !releaseMissed) {
				sleeping.addFirst(sleeper);
				return;
			}
			// A release announced while it was claimed found no one asleep: it is this waiter's.
			releaseMissed = false;
		}
		sleeper.wakeUp.complete(null);
	}

	/** How many waiters are asleep. */
	synchronized int asleep() {
		return sleeping.size();
	}

	/** Passes on a wake-up that a waiter received but will not act on. */
	void wakeOne() {
		wake(1);
	}

	@Override
	public void onMessage(String message) {
		wake(wakeCount.applyAsInt(message));
	}

	/** A release announced while the connection was down is lost: every waiter looks again. */
	@Override
	public void onResubscribed() {
		List<Sleeper> woken;
		synchronized (this) {
			woken = new ArrayList<>(sleeping);
			sleeping.clear();
			// A waiter whose try is in flight may have missed the release too: it looks once more.
			releaseMissed = true;
		}
		woken.forEach(sleeper -> sleeper.wakeUp.complete(null));
	}

	private void wake(int count) {
		if (count <= 0) {
			return;
		}
		List<Sleeper> woken = new ArrayList<>();
		synchronized (this) {
			while (woken.size() < count && !sleeping.isEmpty()) {
				woken.add(sleeping.poll());
			}
			if (woken.size() < count) {
				releaseMissed = true;
			}
		}
		woken.forEach(sleeper -> sleeper.wakeUp.complete(null));
	}

}
