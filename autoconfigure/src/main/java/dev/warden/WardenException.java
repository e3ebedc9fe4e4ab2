package dev.warden;

/**
 * Base class of the exceptions Warden throws when Redis rejects or fails an operation.
 */
public class WardenException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public WardenException(String message) {
		super(message);
	}

	public WardenException(String message, Throwable cause) {
		super(message, cause);
	}

}
