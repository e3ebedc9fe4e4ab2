package dev.warden.lock;

/**
 * Where locks come from: the part of a Warden client that {@code @DistributedLock} needs. The
 * {@link dev.warden.Warden} client is one; the annotation machinery depends on this interface
 * alone, so it can be understood, and its own logic tested, without the engine behind it.
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

	/** The owner the thread-bound lock methods use for the calling thread. */
	LockOwner currentThreadOwner();

	/**
	 * A new owner that belongs to no thread, for a hold acquired on one thread and released on
	 * another. Each call returns a different owner.
	 * @return the owner
	 */
	LockOwner newOwner();

}
