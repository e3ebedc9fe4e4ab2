package dev.warden;

/**
 * Redis refused a write because it is out of memory ({@code OOM command not allowed}): its
 * {@code used_memory} reached {@code maxmemory} and its {@code maxmemory-policy} evicts nothing to
 * make room. Nothing was written: a schedule that throws it is not stored, a lock is not taken.
 */
public class RedisOutOfMemoryException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * A write refused by Redis for want of memory.
	 * @param message what was refused
	 * @param cause the client's failure, Redis's {@code OOM} answer in it
	 */
	public RedisOutOfMemoryException(String message, Throwable cause) {
		super(message, cause);
	}

}
