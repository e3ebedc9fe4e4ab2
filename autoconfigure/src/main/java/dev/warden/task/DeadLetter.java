package dev.warden.task;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task that will not be delivered again: it failed on every attempt, or its payload could not be
 * read. Kept with its payload until {@link DelayedQueue#requeueDeadLetter requeued} or
 * {@link DelayedQueue#deleteDeadLetter deleted}.
 *
 * @param id the task id
 * @param payload the payload as stored (JSON), which may be what could not be read
 * @param attempts how many deliveries were made
 * @param error the last error
 * @param failedAt when it was given up, by Redis's clock
 */
public record DeadLetter(String id, @Nullable String payload, int attempts, String error, Instant failedAt) {
}
