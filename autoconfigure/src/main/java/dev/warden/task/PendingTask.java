package dev.warden.task;

import java.time.Instant;

/**
 * A task waiting for its due time.
 *
 * @param id the task id
 * @param dueAt when it is due, by Redis's clock
 * @param payload its payload
 * @param <T> the payload type
 */
public record PendingTask<T>(String id, Instant dueAt, T payload) {
}
