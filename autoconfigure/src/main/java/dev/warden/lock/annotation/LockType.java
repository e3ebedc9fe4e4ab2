package dev.warden.lock.annotation;

/** Which kind of lock a {@link DistributedLock} method holds. */
public enum LockType {

	/** A reentrant lock ({@code Warden.getLock}). */
	REENTRANT,

	/** A fair lock, granted in arrival order ({@code Warden.getFairLock}). */
	FAIR,

	/** The read side of a read-write lock: shared with other readers. */
	READ,

	/** The write side of a read-write lock: exclusive. */
	WRITE

}
