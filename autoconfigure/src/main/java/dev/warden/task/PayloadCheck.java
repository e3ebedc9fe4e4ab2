package dev.warden.task;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What reading a queue's earliest pending tasks and latest dead letters with the classes deployed
 * now found: after a deploy that changed a task's argument types, the tasks that will fail when due.
 *
 * @param queue the queue
 * @param pendingSampled how many pending tasks were read (the earliest due, at most 100)
 * @param pendingUnreadable the ids of those that could not be read
 * @param deadLettersSampled how many dead letters were read (the latest, at most 100)
 * @param deadLettersUnreadable the ids of those whose payload could not be read
 * @param reason why the first unreadable one could not be read, or {@code null} when all could
 */
public record PayloadCheck(String queue, int pendingSampled, List<String> pendingUnreadable, int deadLettersSampled,
		List<String> deadLettersUnreadable, @Nullable String reason) {

	public PayloadCheck {
		pendingUnreadable = List.copyOf(pendingUnreadable);
		deadLettersUnreadable = List.copyOf(deadLettersUnreadable);
	}

	/** Whether every payload read could be read. */
	public boolean clean() {
		return pendingUnreadable.isEmpty() && deadLettersUnreadable.isEmpty();
	}

}
