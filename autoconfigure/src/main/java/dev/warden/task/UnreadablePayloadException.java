package dev.warden.task;

import dev.warden.WardenException;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by a handler (or by Warden before calling it) when a task's payload cannot be turned
 * back into the handler's types. Such a task goes to the dead letters at once, with the reason:
 * trying again cannot help.
 */
public class UnreadablePayloadException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * A payload that cannot be read.
	 * @param message the task and why its payload cannot be read; it becomes the dead letter's reason
	 * @param cause what the reader threw, if anything
	 */
	public UnreadablePayloadException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
