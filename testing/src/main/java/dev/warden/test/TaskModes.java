package dev.warden.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.warden.task.ScheduleResult;
import dev.warden.task.interceptor.DelayedTaskCalls;
import org.jspecify.annotations.Nullable;

/**
 * What calls of {@code @DelayedTask} methods do in a test, chosen per test; back to
 * {@link Mode#QUEUE} before each test.
 * <pre class="code">
 * &#64;Autowired TaskModes tasks;
 *
 * &#64;Test
 * void purchaseSchedulesItsTimeout() {
 *     tasks.fake();
 *     orders.purchase("apple", 2);
 *     assertThat(tasks.calls()).singleElement().satisfies(call -&gt; {
 *         assertThat(call.queue()).isEqualTo("order-timeout");
 *         assertThat(call.delay()).isEqualTo(Duration.ofMinutes(30));
 *     });
 * }
 * </pre>
 */
public final class TaskModes {

	/** What a call of a {@code @DelayedTask} method does. */
	public enum Mode {

		/** Schedules the task in Redis, as in production; {@link TaskClock} runs it. The default. */
		QUEUE,

		/**
		 * Runs the method at once, on the caller's thread, with its arguments written to JSON and
		 * read back as a delivery reads them (so a test meets the serialization bugs a real delivery
		 * would), through the bean (its lock, its transaction). What it throws reaches the caller.
		 * Nothing is stored in Redis.
		 */
		INLINE,

		/** Records the call and does nothing else: nothing is stored, nothing runs. */
		FAKE

	}

	/**
	 * One call of a {@code @DelayedTask} method, recorded in the inline and fake modes.
	 *
	 * @param queue the queue the task would go to
	 * @param id the task's id
	 * @param delay how long after the call it would be due
	 * @param payload its arguments' JSON, as it would be stored
	 * @param arguments the arguments read back from that JSON, as the method gets them
	 */
	public record Call(String queue, String id, Duration delay, String payload, List<@Nullable Object> arguments) {

		/**
		 * One argument, as the method gets it.
		 * @param index its position, from 0
		 * @param type its type
		 * @param <T> that type
		 * @return the argument
		 */
		public <T> @Nullable T argument(int index, Class<T> type) {
			Object argument = arguments.get(index);
			if (argument != null && !type.isInstance(argument)) {
				throw new ClassCastException("Argument " + index + " of task '" + id + "' is a "
						+ argument.getClass().getName() + ", not a " + type.getName());
			}
			return type.cast(argument);
		}

	}

	private volatile Mode mode = Mode.QUEUE;

	// Guarded by this.
	private final List<Call> calls = new ArrayList<>();

	TaskModes() {
	}

	/** Calls schedule their tasks in Redis, as in production (the default). */
	public void queue() {
		mode = Mode.QUEUE;
	}

	/** Calls run their methods at once, inline (see {@link Mode#INLINE}). */
	public void inline() {
		mode = Mode.INLINE;
	}

	/** Calls are only recorded (see {@link Mode#FAKE}). */
	public void fake() {
		mode = Mode.FAKE;
	}

	/** {@return the mode now} */
	public Mode mode() {
		return mode;
	}

	/** {@return the calls made in the inline and fake modes since the test began, in order} */
	public synchronized List<Call> calls() {
		return List.copyOf(calls);
	}

	/** Back to {@link Mode#QUEUE}, with no call recorded. */
	public synchronized void reset() {
		mode = Mode.QUEUE;
		calls.clear();
	}

	/**
	 * What the delayed-task aspect asks before it schedules a call: a bean of the test's context
	 * beside this one.
	 */
	DelayedTaskCalls interceptor() {
		return this::intercept;
	}

	private @Nullable ScheduleResult intercept(DelayedTaskCalls.Call call) throws Exception {
		Mode now = mode;
		if (now == Mode.QUEUE) {
			return null;
		}
		Object[] arguments = call.arguments();
		synchronized (this) {
			calls.add(new Call(call.queue(), call.id(), call.delay(), call.payload(),
					java.util.Collections.unmodifiableList(java.util.Arrays.asList(arguments))));
		}
		if (now == Mode.INLINE) {
			call.run();
		}
		return new ScheduleResult(ScheduleResult.Status.SCHEDULED, Instant.now().plus(Objects.requireNonNull(call.delay())));
	}

}
