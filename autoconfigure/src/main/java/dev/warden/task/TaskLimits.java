package dev.warden.task;

import java.util.Objects;
import java.util.function.Function;

import dev.warden.ratelimit.RateLimit;
import org.jspecify.annotations.Nullable;

/**
 * Limits on how a queue's tasks start, across every instance that consumes it: at most
 * {@code concurrency} handlers running at once and at most {@code rate} starts, each per key: per
 * tenant, say, when {@code key} reads the tenant from a task's payload, or for the whole queue when
 * it gives the same key to every task.
 * <p>
 * A due task whose key is at its limit is deferred: it goes back to Redis, takes no handler slot and
 * counts no attempt, and becomes due again as soon as its key has room (a running task of that key
 * ends, or the rate allows a start), ahead of tasks due later. Each key has its own limit, so one
 * busy key cannot keep the others waiting. A running task holds its key's slot until it ends or
 * becomes a dead letter; the slot of an instance that died is taken over by the delivery that runs
 * its task again after the visibility timeout.
 * <p>
 * The consumer reads a task's key when the task is due, from the payload as its codec reads it; all
 * instances consuming a queue should use the same limits.
 *
 * @param concurrency how many tasks of one key may run at once; 0 for no such limit
 * @param rate how many tasks of one key may start per period, with its burst; null for no such limit
 * @param key the key of a task, from its payload (null or throwing: the delivery fails, as any
 * failed attempt); null puts every task of the queue under one key
 */
public record TaskLimits(int concurrency, @Nullable RateLimit rate, @Nullable Function<Object, String> key) {

	/** No limit: tasks start as soon as they are due and a handler slot is free. */
	public static final TaskLimits NONE = new TaskLimits(0, null, null);

	/** The key a task has when the limits have no key function: the whole queue is one key. */
	public static final String QUEUE_KEY = "";

	/** The longest key accepted: a task with a longer one fails its delivery. */
	public static final int MAX_KEY_LENGTH = 512;

	/**
	 * Limits, checked.
	 * @param concurrency how many tasks of one key may run at once; 0 for no such limit
	 * @param rate how many tasks of one key may start per period, with its burst; null for no such limit
	 * @param key the key of a task, from its payload (null or throwing: the delivery fails, as any
	 * failed attempt); null puts every task of the queue under one key
	 * @throws IllegalArgumentException when {@code concurrency} is negative, or a key is given without a
	 * concurrency or a rate limit
	 */
	public TaskLimits {
		if (concurrency < 0) {
			throw new IllegalArgumentException("A task concurrency limit must be 0 (none) or more: " + concurrency);
		}
		if (key != null && concurrency == 0 && rate == null) {
			throw new IllegalArgumentException("A task limit key needs a concurrency or a rate limit");
		}
	}

	/**
	 * At most {@code concurrency} tasks of the queue running at once, across all instances.
	 * @param concurrency at least 1
	 * @return the limits
	 */
	public static TaskLimits concurrency(int concurrency) {
		if (concurrency < 1) {
			throw new IllegalArgumentException("A task concurrency limit must be at least 1: " + concurrency);
		}
		return new TaskLimits(concurrency, null, null);
	}

	/**
	 * At most {@code rate} task starts of the queue, across all instances.
	 * @param rate the starts per period, with their burst
	 * @return the limits
	 */
	public static TaskLimits rate(RateLimit rate) {
		return new TaskLimits(0, Objects.requireNonNull(rate, "rate"), null);
	}

	/**
	 * The same limits, but per key of each task instead of for the whole queue.
	 * @param <T> the payload type
	 * @param type the payload type, for the compiler
	 * @param key the key of a task, from its payload
	 * @return the limits
	 */
	@SuppressWarnings("unchecked")
	public <T> TaskLimits perKey(Class<T> type, Function<? super T, String> key) {
		Objects.requireNonNull(key, "key");
		return new TaskLimits(concurrency, rate, payload -> key.apply((T) payload));
	}

	/**
	 * The same limits with a concurrency limit as well.
	 * @param concurrency at least 1
	 * @return the limits
	 */
	public TaskLimits withConcurrency(int concurrency) {
		if (concurrency < 1) {
			throw new IllegalArgumentException("A task concurrency limit must be at least 1: " + concurrency);
		}
		return new TaskLimits(concurrency, rate, key);
	}

	/**
	 * The same limits with a rate limit as well.
	 * @param rate the starts per period, with their burst
	 * @return the limits
	 */
	public TaskLimits withRate(RateLimit rate) {
		return new TaskLimits(concurrency, Objects.requireNonNull(rate, "rate"), key);
	}

	/**
	 * Whether these limits hold tasks back at all.
	 * @return false for {@link #NONE}
	 */
	public boolean limited() {
		return concurrency > 0 || rate != null;
	}

	/**
	 * The key of a task.
	 * @param payload the task's payload, as its codec read it
	 * @return its key
	 * @throws IllegalStateException when the key function gives null, or a key too long or holding a NUL
	 * character
	 */
	public String keyOf(@Nullable Object payload) {
		if (key == null) {
			return QUEUE_KEY;
		}
		String value = key.apply(payload);
		if (value == null) {
			throw new IllegalStateException("The task's limit key is null");
		}
		if (value.length() > MAX_KEY_LENGTH || value.indexOf('\0') >= 0) {
			throw new IllegalStateException("A task limit key must be at most " + MAX_KEY_LENGTH
					+ " characters without NUL: " + value.substring(0, Math.min(value.length(), 80)));
		}
		return value;
	}

	@Override
	public String toString() {
		if (!limited()) {
			return "none";
		}
		StringBuilder text = new StringBuilder();
		if (concurrency > 0) {
			text.append(concurrency).append(" at once");
		}
		if (rate != null) {
			text.append((text.length() > 0) ? ", " : "").append(rate.permits()).append(" starts per ")
				.append(rate.period()).append(" (burst ").append(rate.burst()).append(')');
		}
		return text.append((key != null) ? " per key" : " for the queue").toString();
	}

}
