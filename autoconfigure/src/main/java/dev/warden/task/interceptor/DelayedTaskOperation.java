package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;

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
 * @param options the consumer's attempts, backoff, visibility timeout and task limits (their
 * numbers; the key, when there is one, is {@code limitKey})
 * @param transactional whether a call inside a transaction schedules when it commits
 * @param suspending whether the method is a Kotlin {@code suspend} function, whose continuation is
 * no argument of the task
 * @param returnsHandle whether a call returns the scheduled task's {@link dev.warden.task.TaskHandle}
 * @param limitKey the expression of a task's key under the task limits, over the method's
 * parameters; {@code null} when the limits, if any, are the whole queue's
 */
public record DelayedTaskOperation(Method method, String queue, Duration delay, @Nullable Expression id,
		PayloadCodec<Object[]> codec, ConsumerOptions options, boolean transactional, boolean suspending,
		boolean returnsHandle, @Nullable Expression limitKey) {

	/** The arguments of a task as the method's: a suspend function's continuation is null. */
	public Object[] methodArguments(Object[] taskArguments) {
		return suspending ? Arrays.copyOf(taskArguments, taskArguments.length + 1) : taskArguments;
	}

	/** The arguments of a call that make up the task: a suspend function's continuation left out. */
	public Object[] taskArguments(Object[] arguments) {
		return suspending ? Arrays.copyOf(arguments, arguments.length - 1) : arguments;
	}

}
