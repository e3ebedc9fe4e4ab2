package dev.warden.lock.annotation;

import java.util.Locale;

/** Which kind of lock a {@link DistributedLock} method holds. */
public enum LockType {

	/** A reentrant lock ({@code Warden.getLock}). */
	REENTRANT,

	/** A fair lock, granted in arrival order ({@code Warden.getFairLock}). */
	FAIR,

	/** The read side of a read-write lock: shared with other readers. */
	READ,

	/** The write side of a read-write lock: exclusive. */
	WRITE,

	/**
	 * The plain mutex ({@code Warden.getSimpleLock}): one key, one round trip to acquire and one to
	 * release, not reentrant, so a call that nests another call locking the same name fails with
	 * {@link IllegalStateException}.
	 */
	SIMPLE;

	private final String tag = name().toLowerCase(Locale.ROOT);

	/**
	 * {@return the kind as metrics, observations and the operator's views name it: {@code reentrant},
	 * {@code fair}, …}
	 */
	public String tag() {
		return tag;
	}

}
