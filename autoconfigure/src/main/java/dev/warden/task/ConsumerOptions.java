package dev.warden.task;

import java.time.Duration;
import java.util.Objects;

import dev.warden.WardenDefaults;

/**
 * How a consumer handles a queue's tasks.
 *
 * @param maxAttempts deliveries before a task becomes a dead letter (at least 1)
 * @param backoff the wait before the second attempt; doubled for each further one
 * @param maxBackoff the longest wait between attempts
 * @param visibilityTimeout how long a delivered task stays invisible to other consumers; a task
 * not acknowledged by then (its consumer died) is delivered again. Must exceed the handler's run time.
 * @param limits how many tasks, per key, run at once or start per period across all instances
 */
public record ConsumerOptions(int maxAttempts, Duration backoff, Duration maxBackoff, Duration visibilityTimeout,
		TaskLimits limits) {

	/** 5 attempts, 10 s doubling up to 10 min, 5 min visibility: {@link WardenDefaults}'. */
	public static final ConsumerOptions DEFAULTS = new ConsumerOptions(WardenDefaults.TASK_MAX_ATTEMPTS,
			WardenDefaults.TASK_BACKOFF, WardenDefaults.TASK_MAX_BACKOFF, WardenDefaults.TASK_VISIBILITY_TIMEOUT);

	/**
	 * Options, checked.
	 * @param maxAttempts deliveries before a task becomes a dead letter (at least 1)
	 * @param backoff the wait before the second attempt; doubled for each further one
	 * @param maxBackoff the longest wait between attempts
	 * @param visibilityTimeout how long a delivered task stays invisible to other consumers; a task
	 * not acknowledged by then (its consumer died) is delivered again. Must exceed the handler's run time.
	 * @param limits how many tasks, per key, run at once or start per period across all instances
	 * @throws IllegalArgumentException when {@code maxAttempts} is below 1 or a duration is not positive
	 */
	public ConsumerOptions {
		WardenDefaults.requireAtLeastOne("maxAttempts", maxAttempts);
		WardenDefaults.requirePositive("backoff", backoff);
		WardenDefaults.requirePositive("maxBackoff", maxBackoff);
		WardenDefaults.requirePositive("visibilityTimeout", visibilityTimeout);
		Objects.requireNonNull(limits, "limits");
	}

	/**
	 * Options without task limits.
	 * @param maxAttempts deliveries before a task becomes a dead letter (at least 1)
	 * @param backoff the wait before the second attempt; doubled for each further one
	 * @param maxBackoff the longest wait between attempts
	 * @param visibilityTimeout how long a delivered task stays invisible to other consumers
	 */
	public ConsumerOptions(int maxAttempts, Duration backoff, Duration maxBackoff, Duration visibilityTimeout) {
		this(maxAttempts, backoff, maxBackoff, visibilityTimeout, TaskLimits.NONE);
	}

	/**
	 * {@return the wait after failed delivery number {@code attempt}: the backoff doubled per attempt, capped}
	 * @param attempt the failed delivery's number, from 1
	 */
	public Duration backoffAfter(int attempt) {
		long millis = backoff.toMillis();
		for (int i = 1; i < attempt && millis < maxBackoff.toMillis(); i++) {
			millis *= 2;
		}
		return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
	}

	/**
	 * The same options with another number of attempts.
	 * @param maxAttempts deliveries before a task becomes a dead letter (at least 1)
	 * @return the options
	 */
	public ConsumerOptions withMaxAttempts(int maxAttempts) {
		return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout, limits);
	}

	/**
	 * The same options with another backoff.
	 * @param backoff the wait before the second attempt; doubled for each further one
	 * @return the options
	 */
	public ConsumerOptions withBackoff(Duration backoff) {
		return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout, limits);
	}

	/**
	 * The same options with another longest backoff.
	 * @param maxBackoff the longest wait between attempts
	 * @return the options
	 */
	public ConsumerOptions withMaxBackoff(Duration maxBackoff) {
		return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout, limits);
	}

	/**
	 * The same options with another visibility timeout.
	 * @param visibilityTimeout how long a delivered task stays invisible to other consumers
	 * @return the options
	 */
	public ConsumerOptions withVisibilityTimeout(Duration visibilityTimeout) {
		return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout, limits);
	}

	/**
	 * The same options with limits on how the queue's tasks start.
	 * @param limits the limits; {@link TaskLimits#NONE} for none
	 * @return the options
	 */
	public ConsumerOptions withLimits(TaskLimits limits) {
		return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout, limits);
	}

}
