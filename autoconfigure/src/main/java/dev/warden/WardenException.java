package dev.warden;

/**
 * Base class of the exceptions Warden throws when Redis rejects or fails an operation.
 */
public class WardenException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * A failed operation.
	 * @param message what failed
	 */
	public WardenException(String message) {
		super(message);
	}

	/**
	 * A failed operation, with the failure behind it.
	 * @param message what failed
	 * @param cause the failure behind it
	 */
	public WardenException(String message, Throwable cause) {
		super(message, cause);
	}

}
