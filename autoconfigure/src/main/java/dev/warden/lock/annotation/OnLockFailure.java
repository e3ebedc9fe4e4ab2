package dev.warden.lock.annotation;

/**
 * What an annotated method does when its lock is not acquired within the wait.
 */
public enum OnLockFailure {

	/** Throw {@link dev.warden.lock.LockAcquisitionException}, naming the lock and the wait. */
	THROW,

	/**
	 * Do not run the method: return {@code null}, an empty {@code Optional}, a future completed
	 * with {@code null}, or an empty {@code Mono}/{@code Flux}, by return type.
	 */
	SKIP,

	/**
	 * Call {@link DistributedLock#fallbackMethod()} on the same bean with the same arguments,
	 * optionally followed by the {@link dev.warden.lock.LockAcquisitionException}.
	 */
	FALLBACK

}
