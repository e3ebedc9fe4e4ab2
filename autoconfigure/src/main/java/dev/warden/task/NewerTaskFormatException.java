package dev.warden.task;

import dev.warden.WardenException;

/**
 * Thrown by a {@link PayloadCodec} or a handler (or by Warden before calling it) when a task was
 * written by a later version than this instance reads: a payload of a later {@code @DelayedTask}
 * version, or a task whose stored format is newer than this Warden's. The task is not run here
 * and spends no attempt: it goes back in its queue for an instance that reads it, rechecked every
 * few seconds, and becomes a dead letter with the reason only once instances that cannot read it
 * have left it for longer than {@code warden.delayed-task.newer-format-grace} (re-drive it from an
 * instance that reads it). During a rolling deploy that is the older instances leaving the newer
 * ones' tasks to them.
 */
public class NewerTaskFormatException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what was written, and what this instance reads; it becomes the task's last error
	 */
	public NewerTaskFormatException(String message) {
		super(message);
	}

}
