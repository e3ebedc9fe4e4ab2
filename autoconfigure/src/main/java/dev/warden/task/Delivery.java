package dev.warden.task;

/**
 * One delivery of a due task to a {@link TaskHandler}.
 *
 * @param queue the queue's name
 * @param id the task id
 * @param payload the payload
 * @param attempt which delivery this is, from 1
 * @param <T> the payload type
 */
public record Delivery<T>(String queue, String id, T payload, int attempt) {
}
