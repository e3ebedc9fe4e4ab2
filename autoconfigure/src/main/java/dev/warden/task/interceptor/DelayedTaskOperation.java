package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.warden.task.ConsumerOptions;
import dev.warden.task.PayloadCodec;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

/**
 * A {@link dev.warden.task.annotation.DelayedTask} annotation parsed and checked once.
 *
 * @param method the annotated method, as implemented by the target class
 * @param queue the queue's name
 * @param delay how long after a call the task is due
 * @param id the task id expression, or {@code null} for a fresh id per call
 * @param codec the arguments' codec
 * @param options the consumer's attempts, backoff and visibility timeout
 * @param transactional whether a call inside a transaction schedules when it commits
 */
public record DelayedTaskOperation(Method method, String queue, Duration delay, @Nullable Expression id,
		PayloadCodec<Object[]> codec, ConsumerOptions options, boolean transactional) {
}
