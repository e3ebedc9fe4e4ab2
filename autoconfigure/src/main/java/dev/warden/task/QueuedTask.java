package dev.warden.task;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A pending task as an operator sees it: its stored payload is left as text, so a task whose payload
 * cannot be read is listed too. A page of tasks read with
 * {@link DelayedQueue#pendingTasks(int, int, int)} carries the first bytes of each payload only:
 * {@link #payloadSize()} says how large the whole payload is, {@link #payloadComplete()} whether
 * {@link #payload()} is all of it.
 *
 * @param id the task id
 * @param dueAt when it is due, by Redis's clock
 * @param attempts how many deliveries were made so far (more than 0 for a task waiting for a retry)
 * @param lastError the error of the last failed delivery, or {@code null}
 * @param payload the payload as stored (JSON with the default codec), or its first bytes
 * @param payloadSize the size of the whole stored payload, in UTF-8 bytes
 */
public record QueuedTask(String id, Instant dueAt, int attempts, @Nullable String lastError, String payload,
		long payloadSize) {

	/**
	 * A task with its whole payload.
	 * @param id the task id
	 * @param dueAt when it is due, by Redis's clock
	 * @param attempts how many deliveries were made so far
	 * @param lastError the error of the last failed delivery, or {@code null}
	 * @param payload the whole payload as stored
	 */
	public QueuedTask(String id, Instant dueAt, int attempts, @Nullable String lastError, String payload) {
		this(id, dueAt, attempts, lastError, payload, payload.getBytes(StandardCharsets.UTF_8).length);
	}

	/** {@return whether {@link #payload()} is the whole stored payload, not its first bytes} */
	public boolean payloadComplete() {
		return payload.getBytes(StandardCharsets.UTF_8).length >= payloadSize;
	}

}
