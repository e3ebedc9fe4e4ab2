package dev.warden.lock;

import org.jspecify.annotations.Nullable;

/**
 * Told about events of the locks of one {@link dev.warden.Warden} client, for logging and metrics.
 * Called on Warden's internal threads: implementations must be quick and must not block.
 */
public interface LockListener {

	/** A listener that does nothing. */
	LockListener NONE = new LockListener() {
	};

	/**
	 * A lock renewed by the watchdog was lost: the renewal found another owner (or none) in
	 * Redis, or renewals failed for a whole lease. The former holder no longer has mutual exclusion.
	 * @param lockName the lock's name
	 * @param owner the owner that lost it
	 * @param cause the renewal failure, or {@code null} when Redis answered that the lock was no
	 * longer held
	 */
	default void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
	}

}
