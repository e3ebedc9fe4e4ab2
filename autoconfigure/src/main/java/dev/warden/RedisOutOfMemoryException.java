package dev.warden;

/**
 * Redis refused a write because it is out of memory ({@code OOM command not allowed}): its
 * {@code used_memory} reached {@code maxmemory} and its {@code maxmemory-policy} evicts nothing to
 * make room. Nothing was written: a schedule that throws it is not stored, a lock is not taken.
 */
public class RedisOutOfMemoryException extends WardenException {

	private static final long serialVersionUID = 1L;

	public RedisOutOfMemoryException(String message, Throwable cause) {
		super(message, cause);
	}

}
