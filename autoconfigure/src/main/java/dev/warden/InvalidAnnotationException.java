package dev.warden;

/**
 * Thrown at startup when a {@code @DistributedLock} or {@code @DelayedTask} annotation cannot work
 * as written: an expression that does not parse or names an unknown parameter, a missing or
 * mismatched fallback method, a method that cannot carry a task. The message names the bean, the
 * method and what is wrong.
 */
public class InvalidAnnotationException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * An annotation that cannot work, found through a failure.
	 * @param message the bean, the method and what is wrong
	 * @param cause the failure that showed it, such as a SpEL parse error
	 */
	public InvalidAnnotationException(String message, Throwable cause) {
		super(message, cause);
	}

	/**
	 * An annotation that cannot work.
	 * @param message the bean, the method and what is wrong
	 */
	public InvalidAnnotationException(String message) {
		super(message);
	}

}
