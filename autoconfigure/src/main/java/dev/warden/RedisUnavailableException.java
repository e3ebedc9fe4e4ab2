package dev.warden;

/**
 * Thrown when Redis cannot be reached or does not answer within the command timeout.
 * <p>
 * The operation's outcome is unknown to the caller: a lock acquisition that timed out may still
 * have been applied when Redis comes back, in which case the lock expires with its lease.
 */
public class RedisUnavailableException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * Redis not reached or not answering.
	 * @param message what could not be done
	 */
	public RedisUnavailableException(String message) {
		super(message);
	}

	/**
	 * Redis not reached or not answering, as a failure of the client shows.
	 * @param message what could not be done
	 * @param cause the client's failure, a connection error or a timeout
	 */
	public RedisUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
