package dev.warden.lock;

/**
 * Where locks come from: the part of a Warden client that {@code @DistributedLock} needs. The
 * {@link dev.warden.Warden} client is one; the annotation machinery depends on this interface
 * alone, so it can be understood, and its own logic tested, without the engine behind it.
 * <p>
 * <b>Keys and channels.</b> A lock's name {@code N} is its Redis key: the name as given, or after
 * the client's {@link dev.warden.Warden.Builder#lockNamePrefix(String) lock name prefix}
 * ({@code warden.lock.name-prefix}) when it has one. The keys and channels derived from it are
 * Redisson's, so that an ACL for a prefix {@code P} names {@code P*} and the patterns below with
 * {@code N} = {@code P*}:
 * <ul>
 * <li>every lock: the key {@code N}, and the fencing counter of its hash slot,
 * {@code <namespace>_fencing:{<tag>}} ({@code warden_fencing:*} in the default namespace), which
 * every acquire and release script names;</li>
 * <li>reentrant and simple locks: the channel {@code redisson_lock__channel:{N}};</li>
 * <li>fair locks: the keys {@code redisson_lock_queue:{N}} and {@code redisson_lock_timeout:{N}},
 * and a channel per waiter, {@code redisson_lock__channel:{N}:<owner id>};</li>
 * <li>read-write locks: a key per reader, {@code {N}:<owner id>:rwlock_timeout}, and the channel
 * {@code redisson_rwlock:{N}};</li>
 * <li>and, from the client, semaphores: the channel {@code redisson_sc:{N}}; permit-expirable
 * semaphores: the key {@code {N}:warden_permits} and the channel {@code warden_permits:{N}};
 * count-down latches: the channel {@code redisson_countdownlatch__channel__{N}}.</li>
 * </ul>
 */
public interface LockFactory {

	/**
	 * Returns the reentrant lock of that name.
	 * @param name the lock name, which is also its Redis key; must not be blank
	 * @return a lightweight view of the lock
	 */
	DistributedReentrantLock getLock(String name);

	/**
	 * Returns the fair lock of that name: waiters acquire it in the order they asked.
	 * @param name the lock name, which is also its Redis key; must not be blank
	 * @return a lightweight view of the lock
	 */
	DistributedReentrantLock getFairLock(String name);

	/**
	 * Returns the simple lock of that name: the plain mutex, not reentrant.
	 * @param name the lock name, which is also its Redis key; must not be blank
	 * @return a lightweight view of the lock
	 */
	DistributedSimpleLock getSimpleLock(String name);

	/**
	 * Returns the read-write lock of that name.
	 * @param name the lock name, which is also its Redis key; must not be blank
	 * @return a lightweight view of the lock
	 */
	DistributedReadWriteLock getReadWriteLock(String name);

	/** {@return the owner the thread-bound lock methods use for the calling thread} */
	LockOwner currentThreadOwner();

	/**
	 * A new owner that belongs to no thread, for a hold acquired on one thread and released on
	 * another. Each call returns a different owner.
	 * @return the owner
	 */
	LockOwner newOwner();

}
