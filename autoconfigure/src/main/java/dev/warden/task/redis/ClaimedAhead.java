package dev.warden.task.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

/**
 * The tasks one consumer claimed ahead that wait for their due time, by id, each holding a handler
 * slot; and the message that revokes one, {@code revoke <token length> <token><id>} on the queue's
 * channel, sent when such a task is cancelled, rescheduled or replaced before it starts. Whoever
 * takes a task out of the set starts it or drops it, so a task that waits is started or dropped
 * exactly once.
 * <p>
 * Not thread-safe: guarded by its consumer's monitor.
 */
final class ClaimedAhead {

	/** How a message on the queue's channel that revokes a claim begins. */
	static final String REVOKE = "revoke ";

	private final Map<String, Waiting> waiting = new HashMap<>();

	/**
	 * Adds a task that waits.
	 * @return the task of that id that waited under an earlier claim, whose revocation message was
	 * missed: Redis holds only the new claim, so the caller drops it
	 */
	@Nullable Waiting add(String id, Waiting task) {
		return waiting.put(id, task);
	}

	/** Takes out whatever waits under that id (a new claim of it starts at once), or {@code null}. */
	@Nullable Waiting remove(String id) {
		return waiting.remove(id);
	}

	/** The task that waits under that id, or {@code null}. */
	@Nullable Waiting get(String id) {
		return waiting.get(id);
	}

	/**
	 * Takes this task out, which makes the caller the one that starts or drops it.
	 * @return false when it is not there (it started or was revoked)
	 */
	boolean take(String id, Waiting task) {
		if (waiting.get(id) != task) {
			return false;
		}
		waiting.remove(id);
		return true;
	}

	boolean isEmpty() {
		return waiting.isEmpty();
	}

	/** Takes every waiting task out, which makes the caller the one that drops them all. */
	Map<String, Waiting> takeAll() {
		Map<String, Waiting> all = new HashMap<>(waiting);
		waiting.clear();
		return all;
	}

	/** Whether a message on the queue's channel revokes a claim, rather than announcing a task. */
	static boolean isRevocation(String message) {
		return message.startsWith(REVOKE);
	}

	/**
	 * Reads a revocation message.
	 * @return the claim it revokes, or {@code null} when it is malformed
	 */
	static @Nullable Revocation read(String message) {
		try {
			int space = message.indexOf(' ', REVOKE.length());
			int tokenEnd = space + 1 + Integer.parseInt(message.substring(REVOKE.length(), space));
			return new Revocation(message.substring(space + 1, tokenEnd), message.substring(tokenEnd));
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * One revoked claim.
	 *
	 * @param token the claim's token
	 * @param id the task's id
	 */
	record Revocation(String token, String id) {
	}

	/** A task claimed ahead, waiting for its due time. */
	static final class Waiting {

		final String token;

		// Set right after construction, under the consumer's monitor.
		@Nullable ScheduledFuture<?> start;

		Waiting(String token) {
			this.token = token;
		}

		/** Its timer will not start it. */
		void cancelStart() {
			ScheduledFuture<?> timer = start;
			if (timer != null) {
				timer.cancel(false);
			}
		}

	}

}
