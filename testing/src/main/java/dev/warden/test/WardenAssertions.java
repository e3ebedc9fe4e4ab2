package dev.warden.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.warden.Warden;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.QueuedTask;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.AbstractStringAssert;
import org.assertj.core.api.Assertions;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ assertions on what a queue holds, read from Redis, and on the locks methods ran under:
 * <pre class="code">
 * assertThatQueue(warden, "order-timeout")
 *     .hasTask("order-42")
 *     .dueIn(Duration.ofMinutes(30))
 *     .hasArguments(42L, "apple");
 *
 * assertThatLocks(lockRecorder).held("stock:apple").by(OrderService.class, "purchase");
 * </pre>
 */
public final class WardenAssertions {

	private WardenAssertions() {
	}

	/**
	 * @param warden the application's Warden
	 * @param queue a queue's name
	 * @return assertions on that queue
	 */
	public static QueueAssert assertThatQueue(Warden warden, String queue) {
		return new QueueAssert(warden, warden.getDelayedQueue(queue));
	}

	/**
	 * @param locks the test context's {@link LockRecorder}
	 * @return assertions on the locks {@code @DistributedLock} methods ran under since the test began
	 */
	public static LockAssert assertThatLocks(LockRecorder locks) {
		return new LockAssert(locks.held());
	}

	/** Assertions on a queue's pending tasks and dead letters. */
	public static final class QueueAssert extends AbstractAssert<QueueAssert, DelayedQueue<Object>> {

		private final Warden warden;

		QueueAssert(Warden warden, DelayedQueue<Object> queue) {
			super(queue, QueueAssert.class);
			this.warden = warden;
		}

		/**
		 * Verifies that the queue has that many pending tasks.
		 * @param count the expected number
		 * @return these assertions
		 */
		public QueueAssert hasPendingTasks(long count) {
			long pending = actual.size();
			if (pending != count) {
				failWithMessage("Expected queue '%s' to have %s pending task(s) but it has %s: %s", actual.getName(),
						count, pending, ids(pending()));
			}
			return this;
		}

		/**
		 * Verifies that the queue has no pending task.
		 * @return these assertions
		 */
		public QueueAssert hasNoPendingTasks() {
			return hasPendingTasks(0);
		}

		/**
		 * Verifies that the queue has no dead letter.
		 * @return these assertions
		 */
		public QueueAssert hasNoDeadLetters() {
			long dead = actual.deadLetterCount();
			if (dead != 0) {
				failWithMessage("Expected queue '%s' to have no dead letters but it has %s: %s", actual.getName(), dead,
						actual.deadLetters(0, 20).stream().map(letter -> letter.id() + " (" + letter.error() + ")").toList());
			}
			return this;
		}

		/**
		 * Verifies that the queue has a pending task of that id.
		 * @return assertions on that task
		 * @param id the task's id
		 */
		public PendingTaskAssert hasTask(String id) {
			List<QueuedTask> pending = pending();
			QueuedTask task = pending.stream().filter(candidate -> candidate.id().equals(id)).findFirst().orElse(null);
			if (task == null) {
				failWithMessage("Expected queue '%s' to have a pending task '%s' but its pending tasks are %s",
						actual.getName(), id, ids(pending));
			}
			return new PendingTaskAssert(task, warden, actual.getName());
		}

		/**
		 * Verifies that the queue has no pending task of that id.
		 * @param id the task's id
		 * @return these assertions
		 */
		public QueueAssert hasNoTask(String id) {
			if (pending().stream().anyMatch(candidate -> candidate.id().equals(id))) {
				failWithMessage("Expected queue '%s' to have no pending task '%s' but it has", actual.getName(), id);
			}
			return this;
		}

		/**
		 * Verifies that the queue has a dead letter of that id.
		 * @return assertions on its error
		 * @param id the dead letter's task id
		 */
		public AbstractStringAssert<?> hasDeadLetter(String id) {
			DeadLetter letter = actual.deadLetters()
				.stream()
				.filter(candidate -> candidate.id().equals(id))
				.findFirst()
				.orElse(null);
			if (letter == null) {
				failWithMessage("Expected queue '%s' to have a dead letter '%s' but its dead letters are %s",
						actual.getName(), id, actual.deadLetters().stream().map(DeadLetter::id).toList());
			}
			return Assertions.assertThat(letter.error()).as("the error of dead letter '%s'", id);
		}

		private List<QueuedTask> pending() {
			return PendingTasks.read(actual);
		}

		private static List<String> ids(List<QueuedTask> tasks) {
			return tasks.stream().map(QueuedTask::id).toList();
		}

	}

	/** Assertions on one pending task. */
	public static final class PendingTaskAssert extends AbstractAssert<PendingTaskAssert, @Nullable QueuedTask> {

		/** How far before the expected due time a task scheduled by the test itself may be due. */
		private static final Duration SCHEDULING_SLACK = Duration.ofSeconds(10);

		private final Warden warden;

		private final String queue;

		PendingTaskAssert(@Nullable QueuedTask task, Warden warden, String queue) {
			super(task, PendingTaskAssert.class);
			this.warden = warden;
			this.queue = queue;
		}

		/**
		 * Verifies that the task is due {@code delay} from now, as a task the test has just
		 * scheduled with that delay is: at most {@code delay} away, and at most 10 s less. Now is the
		 * tasks' clock: the {@link TaskClock}'s when the client has a test clock, else this machine's,
		 * which is the clock of the tests' own Redis.
		 * @param delay the delay the task was scheduled with
		 * @return these assertions
		 */
		public PendingTaskAssert dueIn(Duration delay) {
			return dueIn(delay, SCHEDULING_SLACK);
		}

		/**
		 * Like {@link #dueIn(Duration)}, with the slack given.
		 * @param delay the delay the task was scheduled with
		 * @param slack how much less than {@code delay} away the task may be due
		 * @return these assertions
		 */
		public PendingTaskAssert dueIn(Duration delay, Duration slack) {
			isNotNull();
			Instant now = warden.testClock().map(dev.warden.TestClock::now).orElseGet(Instant::now);
			Duration left = Duration.between(now, actual.dueAt());
			if (left.compareTo(delay) > 0 || left.compareTo(delay.minus(slack)) < 0) {
				failWithMessage("Expected task '%s' to be due in %s (within %s) but it is due in %s, at %s", actual.id(),
						delay, slack, left, actual.dueAt());
			}
			return this;
		}

		/**
		 * Verifies that the task is due at that instant, to the millisecond.
		 * @param dueAt the expected due time
		 * @return these assertions
		 */
		public PendingTaskAssert dueAt(Instant dueAt) {
			isNotNull();
			if (!actual.dueAt().equals(dueAt)) {
				failWithMessage("Expected task '%s' to be due at %s but it is due at %s", actual.id(), dueAt,
						actual.dueAt());
			}
			return this;
		}

		/**
		 * Verifies how many deliveries the task has had.
		 * @param attempts the expected number of deliveries
		 * @return these assertions
		 */
		public PendingTaskAssert hasAttempts(int attempts) {
			isNotNull();
			if (actual.attempts() != attempts) {
				failWithMessage("Expected task '%s' to have had %s attempt(s) but it has had %s (last error: %s)",
						actual.id(), attempts, actual.attempts(), actual.lastError());
			}
			return this;
		}

		/**
		 * Verifies the arguments of a {@code @DelayedTask} method's task, read back from the payload
		 * as the method will get them: equal, one by one, to {@code expected}.
		 * @param expected the expected arguments, in order
		 * @return these assertions
		 */
		public PendingTaskAssert hasArguments(@Nullable Object... expected) {
			isNotNull();
			List<@Nullable Object> stored = arguments();
			if (!stored.equals(java.util.Arrays.asList(expected))) {
				failWithMessage("Expected task '%s' to have the arguments %s but it has %s (payload %s)", actual.id(),
						java.util.Arrays.toString(expected), stored, actual.payload());
			}
			return this;
		}

		/**
		 * Assertions on one argument of a {@code @DelayedTask} method's task, read back from the
		 * payload as the method will get it.
		 * @param index the argument's position, from 0
		 * @param type the class to read it as
		 * @param <T> the argument's type
		 * @return assertions on the argument
		 */
		public <T> org.assertj.core.api.ObjectAssert<@Nullable T> argument(int index, Class<T> type) {
			isNotNull();
			return Assertions.<@Nullable T>assertThat(TaskArguments.of(warden)
				.read(queue, actual.id(), actual.payload(), index, type)).as("argument %s of task '%s'", index, actual.id());
		}

		private List<@Nullable Object> arguments() {
			return TaskArguments.of(warden).read(queue, actual.id(), actual.payload());
		}

		/** {@return assertions on the task's payload as stored: its arguments' JSON} */
		public AbstractStringAssert<?> payload() {
			isNotNull();
			return Assertions.assertThat(actual.payload()).as("the payload of task '%s'", actual.id());
		}

	}

	/** Assertions on the locks {@code @DistributedLock} methods ran under. */
	public static final class LockAssert extends AbstractAssert<LockAssert, List<LockRecorder.Held>> {

		LockAssert(List<LockRecorder.Held> held) {
			super(held, LockAssert.class);
		}

		/**
		 * Verifies that some call acquired the lock and released it since the test began.
		 * @param name the lock's name: the annotation's name, a colon, the key's value ({@code stock:apple})
		 * @return assertions on the calls that held it
		 */
		public HeldAssert held(String name) {
			List<LockRecorder.Held> calls = actual.stream().filter(call -> call.names().contains(name)).toList();
			if (calls.isEmpty()) {
				failWithMessage("Expected a @DistributedLock method to have run under lock '%s' but the calls were %s",
						name, actual);
			}
			return new HeldAssert(name, calls);
		}

		/**
		 * Verifies that no call acquired the lock since the test began.
		 * @param name the lock's name: the annotation's name, a colon, the key's value ({@code stock:apple})
		 * @return these assertions
		 */
		public LockAssert neverHeld(String name) {
			List<LockRecorder.Held> calls = actual.stream().filter(call -> call.names().contains(name)).toList();
			if (!calls.isEmpty()) {
				failWithMessage("Expected no method to have run under lock '%s' but %s did", name, calls);
			}
			return this;
		}

	}

	/** Assertions on the calls that held one lock. */
	public static final class HeldAssert extends AbstractAssert<HeldAssert, List<LockRecorder.Held>> {

		private final String name;

		HeldAssert(String name, List<LockRecorder.Held> calls) {
			super(calls, HeldAssert.class);
			this.name = name;
		}

		/**
		 * Verifies that a call of that method held the lock, and has released it.
		 * @param type the class that declares the method
		 * @param method the method's name
		 * @return these assertions
		 */
		public HeldAssert by(Class<?> type, String method) {
			boolean found = actual.stream()
				.anyMatch(call -> call.released() && call.method().getName().equals(method)
						&& call.method().getDeclaringClass().isAssignableFrom(type));
			if (!found) {
				failWithMessage("Expected %s.%s to have run under lock '%s' and released it, but the calls under it "
						+ "were %s", type.getSimpleName(), method, name, actual);
			}
			return this;
		}

		/**
		 * Verifies how many calls held the lock.
		 * @param count the expected number of calls
		 * @return these assertions
		 */
		public HeldAssert times(int count) {
			if (actual.size() != count) {
				failWithMessage("Expected %s call(s) under lock '%s' but there were %s: %s", count, name, actual.size(),
						actual);
			}
			return this;
		}

	}

}
