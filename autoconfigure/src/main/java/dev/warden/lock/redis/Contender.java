package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * What one kind of waiter does at each step of the protocol.
 *
 * @param <T> what a successful try gives
 */
interface Contender<T> {

	/** A command that needs no answer. */
	CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	/**
	 * One try.
	 * @param willWait whether the caller waits if it fails (a fair lock queues the waiter then)
	 * @return its outcome
	 */
	CompletableFuture<Try<T>> tryOnce(boolean willWait);

	/** The channel on which this waiter is told to try again. */
	String channel();

	/** Creates the channel's waiters, which decide how many a message wakes. */
	Supplier<LockWaiters> waiters();

	/** What the synchronizer is, for messages: {@code lock of 'orders'}. */
	String description();

	/**
	 * Whether each release lets in one waiter at most, all of this client's waiters listening on one
	 * channel: a waiter that joins a channel listened to since before its first try then sleeps
	 * without trying again, as a release announced meanwhile woke another waiter or is remembered
	 * for the next one to sleep ({@link LockWaiters}).
	 */
	default boolean oneWaiterPerRelease() {
		return false;
	}

	/**
	 * Whether a try that failed because its connection closed before Redis answered (it may have
	 * run: {@link dev.warden.redis.RedisEngine#closedBeforeReply}) is tried again while the wait
	 * lasts, instead of failing the acquisition. Only for a kind whose try may run twice without
	 * harm: a lock, which drops a hold a lost try may have left at its next win
	 * ({@link KnownHolds}); not a semaphore, whose second run would take a second permit.
	 */
	default boolean triesAgainAfterALostReply() {
		return false;
	}

	/** What this waiter takes a hand-over from a release of its own client as, if it can take one. */
	default LockWaiters.@Nullable Successor successor() {
		return null;
	}

	/**
	 * A release of this client handed the synchronizer to this waiter.
	 * @param token the fencing token the hand-over gave (0 when none was asked for)
	 * @return what a successful try would have given
	 */
	default T handedOver(long token) {
		throw new IllegalStateException(description() + " is never handed over");
	}

	/** The caller begins to wait (before its first try). */
	default void waitBegins() {
	}

	/**
	 * The caller stopped waiting.
	 * @param acquired whether it got what it waited for
	 * @return completes once Redis has what leaving requires (a fair waiter's place given up)
	 */
	default CompletableFuture<?> waitEnds(boolean acquired) {
		return DONE;
	}

	/**
	 * Undoes a try that succeeded after the caller stopped waiting (it cancelled).
	 * @param value what the try gave
	 * @return completes once it is undone
	 */
	CompletableFuture<?> giveBack(T value);

	/**
	 * Undoes what a try may have taken when it failed without telling whether it ran (its reply lost,
	 * its connection closed before Redis answered) after the caller stopped waiting.
	 * @param failure how the try failed
	 * @return completes once it is undone; by default nothing is done (a kind whose try takes nothing
	 * that outlasts its lease, or that cannot tell what it took)
	 */
	default CompletableFuture<?> giveBackUnknown(Throwable failure) {
		return DONE;
	}

	/**
	 * The outcome of one try.
	 *
	 * @param value what it gave when it succeeded, else {@code null}
	 * @param retryInMillis when it failed: the longest sleep before the next try (a lease that runs
	 * out then), or a negative value to sleep until a message
	 * @param <T> what a successful try gives
	 */
	record Try<T>(@Nullable T value, long retryInMillis) {

		static <T> Try<T> succeeded(T value) {
			return new Try<>(value, 0);
		}

		static <T> Try<T> failed(long retryInMillis) {
			return new Try<>(null, retryInMillis);
		}

		boolean succeeded() {
			return value != null;
		}

	}

}
