package dev.warden.lock.spi;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.LockOwner;
import org.jspecify.annotations.Nullable;

/**
 * The locks one {@link LockedCall} needs, for one owner: acquired all or nothing, in the sorted
 * order of their names (so two calls that need overlapping sets cannot deadlock), released in
 * reverse order. The call's wait, lease, minimum hold, meters and observations apply to it.
 */
public interface LockSet {

	/** {@return the lock names, sorted} */
	List<String> names();

	/** {@return the owner the locks are acquired for} */
	LockOwner owner();

	/** {@return the exception that reports these locks as not acquired within the wait} */
	LockAcquisitionException failure();

	/**
	 * Acquires every lock within one shared wait, blocking; on failure releases those it took.
	 * @return whether all were acquired
	 * @throws InterruptedException when interrupted while waiting
	 */
	boolean acquire() throws InterruptedException;

	/**
	 * Like {@link #acquire()}, returning each lock's fencing token.
	 * @return the lock names and their tokens, or {@code null} when not all were acquired
	 * @throws InterruptedException when interrupted while waiting
	 */
	@Nullable Map<String, Long> acquireWithTokens() throws InterruptedException;

	/**
	 * Acquires every lock within one shared wait without blocking a thread.
	 * @return completes with whether all were acquired (those taken are released otherwise);
	 * cancelling it stops the acquisition and gives back whatever was or will be acquired
	 */
	CompletableFuture<Boolean> acquireAsync();

	/**
	 * Like {@link #acquireAsync()}, completing with each lock's fencing token.
	 * @return completes with the lock names and their tokens, or {@code null} when not all were
	 * acquired; cancelling it stops the acquisition and gives back whatever was or will be acquired
	 */
	CompletableFuture<@Nullable Map<String, Long>> acquireWithTokensAsync();

	/**
	 * Releases every lock, in reverse order. Every lock is released even when one fails; the
	 * first failure is thrown afterwards.
	 * @throws IllegalMonitorStateException when a lock was no longer held (its lease ran out)
	 */
	void release();

	/**
	 * Releases every lock without blocking; fails like {@link #release()}. With a minimum hold that
	 * has not passed yet, each lock is left to expire when it has.
	 * @return a future that completes once every lock is released, or exceptionally as {@link #release()} fails
	 */
	CompletableFuture<Void> releaseAsync();

}
