package dev.warden.task;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What reading a queue's earliest pending tasks and latest dead letters with the classes deployed
 * now found: after a deploy that changed a task's argument types, the tasks that will fail when due.
 *
 * @param queue the queue
 * @param pendingSampled how many pending tasks were read (the earliest due, at most 100, fewer when
 * the byte budget ran out)
 * @param pendingUnreadable the ids of those that could not be read
 * @param deadLettersSampled how many dead letters were read (the latest, at most 100, fewer when the
 * byte budget ran out)
 * @param deadLettersUnreadable the ids of those whose payload could not be read
 * @param reason why the first unreadable one could not be read, or {@code null} when all could
 * @param budgetReached whether the check stopped early because the next payload would have taken it
 * past the bytes of payloads one check reads at most (16 MiB): then fewer were read than the queue
 * has, and the rest were not checked
 */
public record PayloadCheck(String queue, int pendingSampled, List<String> pendingUnreadable, int deadLettersSampled,
		List<String> deadLettersUnreadable, @Nullable String reason, boolean budgetReached) {

	/**
	 * A check's findings, the id lists copied.
	 * @param queue the queue
	 * @param pendingSampled how many pending tasks were read (the earliest due, at most 100, fewer when
	 * the byte budget ran out)
	 * @param pendingUnreadable the ids of those that could not be read
	 * @param deadLettersSampled how many dead letters were read (the latest, at most 100, fewer when the
	 * byte budget ran out)
	 * @param deadLettersUnreadable the ids of those whose payload could not be read
	 * @param reason why the first unreadable one could not be read, or {@code null} when all could
	 * @param budgetReached whether the check stopped early because the next payload would have taken it
	 * past the bytes of payloads one check reads at most (16 MiB): then fewer were read than the queue
	 * has, and the rest were not checked
	 */
	public PayloadCheck {
		pendingUnreadable = List.copyOf(pendingUnreadable);
		deadLettersUnreadable = List.copyOf(deadLettersUnreadable);
	}

	/** {@return whether every payload read could be read} */
	public boolean clean() {
		return pendingUnreadable.isEmpty() && deadLettersUnreadable.isEmpty();
	}

}
