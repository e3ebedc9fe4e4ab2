package dev.warden.task;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task that will not be delivered again: it failed on every attempt, or its payload could not be
 * read. Kept with its payload until {@link DelayedQueue#requeueDeadLetter requeued} or
 * {@link DelayedQueue#deleteDeadLetter deleted}. A page of dead letters read with
 * {@link DelayedQueue#deadLetters(int, int, int)} carries the first bytes of each payload only:
 * {@link #payloadSize()} says how large the whole payload is, {@link #payloadComplete()} whether
 * {@link #payload()} is all of it.
 *
 * @param id the task id
 * @param payload the payload as stored (JSON), which may be what could not be read, or its first
 * bytes; {@code null} when the task had none
 * @param attempts how many deliveries were made
 * @param error the last error
 * @param failedAt when it was given up, by Redis's clock
 * @param payloadSize the size of the whole stored payload, in UTF-8 bytes; 0 without one
 */
public record DeadLetter(String id, @Nullable String payload, int attempts, String error, Instant failedAt,
		long payloadSize) {

	/**
	 * A dead letter with its whole payload.
	 * @param id the task id
	 * @param payload the whole payload as stored, or {@code null}
	 * @param attempts how many deliveries were made
	 * @param error the last error
	 * @param failedAt when it was given up, by Redis's clock
	 */
	public DeadLetter(String id, @Nullable String payload, int attempts, String error, Instant failedAt) {
		this(id, payload, attempts, error, failedAt,
				(payload != null) ? payload.getBytes(StandardCharsets.UTF_8).length : 0);
	}

	/** {@return whether {@link #payload()} is the whole stored payload, not its first bytes} */
	public boolean payloadComplete() {
		return payload == null || payload.getBytes(StandardCharsets.UTF_8).length >= payloadSize;
	}

}
