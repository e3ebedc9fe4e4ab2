package dev.warden.task;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A pending task as an operator sees it: its stored payload is left as text, so a task whose payload
 * cannot be read is listed too.
 *
 * @param id the task id
 * @param dueAt when it is due, by Redis's clock
 * @param attempts how many deliveries were made so far (more than 0 for a task waiting for a retry)
 * @param lastError the error of the last failed delivery, or {@code null}
 * @param payload the payload as stored (JSON with the default codec)
 */
public record QueuedTask(String id, Instant dueAt, int attempts, @Nullable String lastError, String payload) {
}
