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

	public UnreadablePayloadException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
