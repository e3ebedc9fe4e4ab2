package dev.warden.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.warden.Warden;
import dev.warden.task.DelayedQueue;
import dev.warden.task.QueuedTask;
import org.jspecify.annotations.Nullable;

/**
 * What a queue holds now, read from Redis, with each task's arguments read back as its
 * {@code @DelayedTask} method will get them:
 * <pre class="code">
 * List&lt;PendingTasks.Task&gt; pending = PendingTasks.of(warden, "order-timeout");
 * assertThat(pending).extracting(task -&gt; task.argument(1, String.class)).containsExactly("apple");
 * </pre>
 */
public final class PendingTasks {

	/** How many pending tasks are read at most. */
	static final int MAX_READ = 10_000;

	private static final int PAGE = 500;

	private PendingTasks() {
	}

	/** One pending task. */
	public static final class Task {

		private final String queue;

		private final QueuedTask task;

		private final TaskArguments reader;

		Task(String queue, QueuedTask task, TaskArguments reader) {
			this.queue = queue;
			this.task = task;
			this.reader = reader;
		}

		/** {@return its queue} */
		public String queue() {
			return queue;
		}

		/** {@return its id} */
		public String id() {
			return task.id();
		}

		/** {@return when it is due, by the tasks' clock} */
		public Instant dueAt() {
			return task.dueAt();
		}

		/** {@return how many deliveries it has had} */
		public int attempts() {
			return task.attempts();
		}

		/** {@return the last delivery's error, or {@code null}} */
		public @Nullable String lastError() {
			return task.lastError();
		}

		/** {@return its payload as stored} */
		public String payload() {
			return task.payload();
		}

		/** {@return its arguments as its {@code @DelayedTask} method will get them} */
		public List<@Nullable Object> arguments() {
			return reader.read(queue, task.id(), task.payload());
		}

		/**
		 * {@return one argument as its method will get it}
		 * @param index the argument's position, from 0
		 * @param type the class to read it as
		 * @param <T> the argument's type
		 */
		public <T> @Nullable T argument(int index, Class<T> type) {
			return reader.read(queue, task.id(), task.payload(), index, type);
		}

		@Override
		public String toString() {
			return queue + "/" + task.id() + " due at " + task.dueAt() + " (" + task.attempts() + " attempt(s)): "
					+ task.payload();
		}

	}

	/**
	 * @param warden the client of a {@link WardenTest} application
	 * @param queue a queue's name
	 * @return its pending tasks (at most 10,000), the earliest due first
	 */
	public static List<Task> of(Warden warden, String queue) {
		TaskArguments reader = TaskArguments.of(warden);
		List<Task> tasks = new ArrayList<>();
		for (QueuedTask task : read(warden.getDelayedQueue(queue))) {
			tasks.add(new Task(queue, task, reader));
		}
		return tasks;
	}

	/** The queue's pending tasks as stored (at most 10,000), the earliest due first. */
	static List<QueuedTask> read(DelayedQueue<?> queue) {
		List<QueuedTask> tasks = new ArrayList<>();
		for (int offset = 0; offset < MAX_READ; offset += PAGE) {
			List<QueuedTask> page = queue.pendingTasks(offset, PAGE);
			tasks.addAll(page);
			if (page.size() < PAGE) {
				break;
			}
		}
		return tasks;
	}

}
