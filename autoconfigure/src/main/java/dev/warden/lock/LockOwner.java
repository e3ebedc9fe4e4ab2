package dev.warden.lock;

/**
 * Who holds a lock: the field name under which the lock's hash counts this owner's holds.
 * <p>
 * Ids have the form {@code <clientId>:<n>}, as in Redisson. The thread-bound {@link java.util.concurrent.locks.Lock}
 * methods use the current thread's id as {@code n}; {@link dev.warden.Warden#newOwner()} makes owners
 * that belong to no thread (negative {@code n}), for holds that start on one thread and end on
 * another, such as a lock held until a {@code CompletableFuture} completes.
 *
 * @param id the owner's id, unique across all clients of the lock
 */
public record LockOwner(String id) {

	/**
	 * An owner of that id.
	 * @param id the owner's id, unique across all clients of the lock
	 * @throws IllegalArgumentException when {@code id} is null or blank
	 */
	public LockOwner {
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("A lock owner id must not be null or blank");
		}
	}

	@Override
	public String toString() {
		return id;
	}

}
