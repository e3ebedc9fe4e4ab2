package dev.warden.task;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A durable queue of delayed tasks in Redis. Tasks have ids, are stored once, survive restarts of
 * every client (and of Redis, with persistence on), and are delivered at least once, to one
 * consumer, when due. Due times are kept by Redis's clock, never the callers'.
 *
 * <pre>{@code
 * DelayedQueue<Long> timeouts = warden.getDelayedQueue("order-timeout", Long.class);
 * timeouts.schedule("order-42", 42L, Duration.ofMinutes(30));   // when the order is created
 * timeouts.cancel("order-42");                                   // when it is paid
 * timeouts.consume(task -> orders.closeIfUnpaid(task.payload()));
 * }</pre>
 *
 * @param <T> the payload type
 */
public interface DelayedQueue<T> {

	/** {@return the queue's name} */
	String getName();

	/**
	 * Schedules a task due after {@code delay}, counted by Redis's clock. Idempotent by id: when a
	 * task of that id is pending or being handled, it is kept as it is (unless
	 * {@link ScheduleOption#REPLACE} is given) and the result says so.
	 * @param taskId the task id; not blank
	 * @param payload the payload, stored as JSON; not {@code null}
	 * @param delay the delay; not negative, at most 100 years
	 * @param options {@link ScheduleOption#REPLACE} to overwrite
	 * @return what was done
	 * @throws IllegalArgumentException before anything is stored, when an argument is out of range,
	 * or the payload cannot be written, is larger than the client's limit (1 MiB by default), or
	 * cannot be read back: such a task could only become a dead letter
	 */
	ScheduleResult schedule(String taskId, T payload, Duration delay, ScheduleOption... options);

	/**
	 * Schedules a task due at {@code dueAt}.
	 * @param taskId the task id; not blank
	 * @param payload the payload, stored as JSON; not {@code null}
	 * @param dueAt when it is due (in the past: due at once); not after the year 9999
	 * @param options {@link ScheduleOption#REPLACE} to overwrite
	 * @return what was done
	 * @throws IllegalArgumentException as for {@link #schedule(String, Object, Duration, ScheduleOption...)}
	 */
	ScheduleResult schedule(String taskId, T payload, Instant dueAt, ScheduleOption... options);

	/**
	 * Cancels a task, so that its handler does not run: a pending task, or one its consumer claimed
	 * ahead of its due time and has not started (a consumer confirms each such start with Redis, and
	 * a cancelled task's confirmation fails). A task whose handler runs, or whose start is confirmed,
	 * is not cancelled: it completes, or is retried, as usual.
	 * @return {@code true} when the task was cancelled and its handler will not run; {@code false}
	 * when there is no such task, or it runs
	 * @param taskId the task's id
	 */
	boolean cancel(String taskId);

	/**
	 * Moves a pending task to a new due time, {@code delay} from Redis's clock now.
	 * @return whether such a task was pending (a task being handled is not moved; one claimed ahead of
	 * its due time that has not started is, as for {@link #cancel})
	 * @param taskId the task's id
	 * @param delay the new delay, from now
	 */
	boolean reschedule(String taskId, Duration delay);

	/**
	 * Moves a pending task to a new due time.
	 * @return whether such a task was pending (a task being handled is not moved; one claimed ahead of
	 * its due time that has not started is, as for {@link #cancel})
	 * @param taskId the task's id
	 * @param dueAt the new due time
	 */
	boolean reschedule(String taskId, Instant dueAt);

	/**
	 * {@return whether a task of that id is pending or being handled}
	 * @param taskId the task's id
	 */
	boolean contains(String taskId);

	/**
	 * When the task is due; empty when there is no such pending task (or it is being handled). A
	 * task claimed ahead of its due time that has not started counts as pending.
	 * @param taskId the task's id
	 * @return the due time, or empty
	 */
	Optional<Instant> dueAt(String taskId);

	/** {@return how many tasks are pending or being handled} */
	long size();

	/**
	 * Pending tasks in due order. A task a consumer has claimed is not listed, including one it
	 * claimed ahead of its due time (see {@code warden.delayed-task.claim-ahead}) and will start then.
	 * @param offset how many to skip
	 * @param count how many at most
	 * @return the tasks
	 */
	List<PendingTask<T>> list(int offset, int count);

	/**
	 * One page of the pending tasks in due order, as an operator sees them: with their deliveries
	 * so far, their last error, and the payload as stored (not read, so a task whose payload cannot be
	 * read is listed too). Claimed tasks are not listed, as with {@link #list(int, int)}.
	 * @param offset how many to skip; not negative
	 * @param limit how many at most; from 1 to 1,000
	 * @return the page
	 */
	List<QueuedTask> pendingTasks(int offset, int limit);

	/**
	 * One page of the pending tasks in due order, as {@link #pendingTasks(int, int)}, with the first
	 * bytes of each payload only, cut in Redis (whole payloads never cross the wire), and each
	 * payload's size: what a page shown to an operator needs. Read one task whole with
	 * {@link #pendingTask(String)}.
	 * @param offset how many to skip; not negative
	 * @param limit how many at most; from 1 to 1,000
	 * @param payloadBytes how many UTF-8 bytes of each payload at most (a character is not cut);
	 * from 1 to 65,536
	 * @return the page
	 */
	List<QueuedTask> pendingTasks(int offset, int limit, int payloadBytes);

	/**
	 * One pending task, with its whole payload, or its first
	 * {@code warden.delayed-task.max-payload-size} bytes when it is larger (see
	 * {@link QueuedTask#payloadComplete()}). A claimed task is not pending.
	 * @param taskId the task id
	 * @return the task, or empty when it is not pending
	 */
	Optional<QueuedTask> pendingTask(String taskId);

	/** {@return what the queue holds: pending, in flight and dead, in one consistent read} */
	QueueStats stats();

	/**
	 * Every dead letter, the oldest failure first: one read of all of them. A queue that may hold
	 * many reads them a page at a time with {@link #deadLetters(int, int)}.
	 * @return the dead letters, oldest failure first
	 */
	List<DeadLetter> deadLetters();

	/**
	 * One page of the dead letters, the most recent failure first.
	 * @param offset how many to skip; not negative
	 * @param limit how many at most; from 1 to 1,000
	 * @return the page
	 */
	List<DeadLetter> deadLetters(int offset, int limit);

	/**
	 * One page of the dead letters, as {@link #deadLetters(int, int)}, with the first bytes of each
	 * payload only, cut in Redis (whole payloads never cross the wire), and each payload's size. Read
	 * one dead letter whole with {@link #deadLetter(String)}.
	 * @param offset how many to skip; not negative
	 * @param limit how many at most; from 1 to 1,000
	 * @param payloadBytes how many UTF-8 bytes of each payload at most (a character is not cut);
	 * from 1 to 65,536
	 * @return the page
	 */
	List<DeadLetter> deadLetters(int offset, int limit, int payloadBytes);

	/**
	 * One dead letter, with its whole payload, or its first
	 * {@code warden.delayed-task.max-payload-size} bytes when it is larger (see
	 * {@link DeadLetter#payloadComplete()}).
	 * @param taskId the task id
	 * @return the dead letter, or empty when there is none of that id
	 */
	Optional<DeadLetter> deadLetter(String taskId);

	/** {@return how many dead letters the queue holds} */
	long deadLetterCount();

	/**
	 * Puts back in the queue, due now with their attempts reset, every dead letter that failed
	 * within the range; one whose id is pending again is left where it is.
	 * @param failedFrom the start of the range, inclusive
	 * @param failedTo the end of the range, exclusive
	 * @return how many were put back
	 */
	long requeueDeadLetters(Instant failedFrom, Instant failedTo);

	/**
	 * Deletes every dead letter that failed before {@code failedBefore}.
	 * @param failedBefore the time, exclusive; {@link Instant#MAX} for all of them
	 * @return how many were deleted
	 */
	long purgeDeadLetters(Instant failedBefore);

	/**
	 * Puts a dead letter back in the queue, due now, with its attempts reset.
	 * @return whether there was such a dead letter (and no pending task of the same id)
	 * @param taskId the dead letter's task id
	 */
	boolean requeueDeadLetter(String taskId);

	/**
	 * Deletes a dead letter.
	 * @param taskId the dead letter's task id
	 * @return whether there was such a dead letter
	 */
	boolean deleteDeadLetter(String taskId);

	/**
	 * Starts consuming this queue on this client with the client's default options.
	 * @param handler handles each due task
	 * @return the running consumer
	 */
	TaskConsumer consume(TaskHandler<T> handler);

	/**
	 * Starts consuming this queue on this client.
	 * @param handler handles each due task
	 * @param options attempts, backoff and visibility timeout
	 * @return the running consumer
	 */
	TaskConsumer consume(TaskHandler<T> handler, ConsumerOptions options);

}
