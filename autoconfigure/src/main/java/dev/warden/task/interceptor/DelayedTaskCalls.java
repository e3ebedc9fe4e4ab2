package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.warden.task.ScheduleResult;
import org.jspecify.annotations.Nullable;

/**
 * Decides what calls of {@link dev.warden.task.annotation.DelayedTask} methods do instead of
 * scheduling, for tests: {@code warden-test}'s inline mode runs the method at once, its fake mode
 * only records the call. An application has at most one bean of this type; without one (as in
 * production) every call schedules its task.
 */
@FunctionalInterface
public interface DelayedTaskCalls {

	/**
	 * @param call the call, its arguments already written as the task's payload
	 * @return what the caller is told (a {@code TaskHandle}'s result) when the call was taken care
	 * of and nothing is to be scheduled; {@code null} to schedule the task as usual
	 * @throws Exception what running the method inline threw, which the caller gets
	 */
	@Nullable ScheduleResult intercept(Call call) throws Exception;

	/** One call of a {@code @DelayedTask} method. */
	interface Call {

		/** The queue the task would go to. */
		String queue();

		/** The task's id. */
		String id();

		/** How long after the call the task would be due. */
		Duration delay();

		/** The annotated method. */
		Method method();

		/** The arguments as they would be stored: their JSON, as the task's payload. */
		String payload();

		/** The arguments read back from {@link #payload()}, as the method would get them when due. */
		Object[] arguments();

		/**
		 * Runs the method now, on this thread, with {@link #arguments()}, through the bean, as a due
		 * task runs it: its lock, its transaction and its other advice apply.
		 * @throws Exception what the method threw
		 */
		void run() throws Exception;

	}

}
