package dev.warden.task.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.warden.WardenNames;
import dev.warden.json.JsonBinding;
import dev.warden.redis.RedisEngine;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.PayloadCodec;
import dev.warden.task.PendingTask;
import dev.warden.task.QueueStats;
import dev.warden.task.QueuedTask;
import dev.warden.task.ScheduleOption;
import dev.warden.task.ScheduleResult;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskHandler;
import dev.warden.task.TaskWrite;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * {@link DelayedQueue} on Redis. Instances are cheap views of one queue; the state is in Redis and
 * in the client's consumers.
 *
 * @param <T> the payload type
 */
public final class RedisDelayedQueue<T> implements DelayedQueue<T> {

	/**
	 * The prefix of every queue's keys in the default namespace; a client's own is its namespace's
	 * {@link dev.warden.redis.KeyNamespace#taskPrefix() task prefix}.
	 */
	public static final String KEY_PREFIX = "warden:task:";

	/**
	 * The channel a queue's consumers listen on: a message is the microseconds until a task is due,
	 * and makes them claim by then.
	 * @param engine the client's engine, whose namespace the queue is in
	 * @param name the queue's name
	 * @return the channel
	 */
	public static String wakeChannel(RedisEngine engine, String name) {
		return new QueueKeys(engine.namespace().taskPrefix(), name).channel;
	}

	/** The largest page of dead letters or pending tasks one call reads. */
	public static final int MAX_DEAD_LETTER_PAGE = 1_000;

	private final String name;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final PayloadCodec<T> codec;

	private final Consumers consumers;

	private final DeadLetters deadLetters;

	/**
	 * @param name the queue's name
	 * @param engine the client's engine
	 * @param codec turns payloads into stored text and back
	 * @param json reads dead letters
	 * @param consumers the client's consumers
	 */
	public RedisDelayedQueue(String name, RedisEngine engine, PayloadCodec<T> codec, JsonBinding json,
			Consumers consumers) {
		this.keys = new QueueKeys(engine.namespace().taskPrefix(), name);
		this.name = name;
		this.engine = engine;
		this.codec = codec;
		this.consumers = consumers;
		this.deadLetters = new DeadLetters(name, keys, engine, json);
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public ScheduleResult schedule(String taskId, T payload, Duration delay, ScheduleOption... options) {
		return schedule(taskId, payload, "in", ScheduleArguments.delayMillis(delay), options);
	}

	@Override
	public ScheduleResult schedule(String taskId, T payload, Instant dueAt, ScheduleOption... options) {
		return schedule(taskId, payload, "at", ScheduleArguments.dueMillis(dueAt), options);
	}

	private ScheduleResult schedule(String taskId, T payload, String mode, long time, ScheduleOption... options) {
		requireId(taskId);
		String encoded = ScheduleArguments.encode(codec, name, taskId, payload, consumers.maxPayloadBytes());
		boolean replace = has(options, ScheduleOption.REPLACE);
		if (!has(options, ScheduleOption.IMMEDIATE) && consumers.deferral().defers(name)) {
			consumers.deferral().defer(TaskWrite.schedule(name, taskId, encoded, delay(mode, time), dueAt(mode, time),
					replace));
			return new ScheduleResult(ScheduleResult.Status.PENDING_COMMIT, null);
		}
		return store(taskId, encoded, mode, time, replace);
	}

	/** Stores an encoded task now. */
	ScheduleResult store(String taskId, String encoded, String mode, long time, boolean replace) {
		TaskTracing.Scheduling scheduling = consumers.tracing().startSchedule(name, taskId);
		List<Long> reply;
		try {
			reply = engine.await(consumers.schedules(engine, keys).schedule(taskId, encoded, mode, time, replace,
					scheduling.traceContext()), "schedule of task '" + taskId + "'");
		}
		catch (RuntimeException ex) {
			scheduling.observation().error(ex);
			throw ex;
		}
		finally {
			scheduling.observation().stop();
		}
		ScheduleResult.Status status = switch (reply.get(0).intValue()) {
			case 1 -> ScheduleResult.Status.SCHEDULED;
			case 2 -> ScheduleResult.Status.REPLACED;
			default -> ScheduleResult.Status.ALREADY_PENDING;
		};
		if (status != ScheduleResult.Status.ALREADY_PENDING) {
			consumers.listener().onScheduled(name, 1);
		}
		long due = reply.get(1);
		return new ScheduleResult(status, (due >= 0) ? Instant.ofEpochMilli(due) : null);
	}

	/** A write's delay: the time given in mode {@code in}, else -1. */
	private static long delay(String mode, long time) {
		return mode.equals("in") ? time : -1;
	}

	/** A write's due time: the time given in mode {@code at}, else -1. */
	private static long dueAt(String mode, long time) {
		return mode.equals("at") ? time : -1;
	}

	private static boolean has(ScheduleOption[] options, ScheduleOption option) {
		for (ScheduleOption given : options) {
			if (given == option) {
				return true;
			}
		}
		return false;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Inside a transaction that the client's {@link dev.warden.task.TaskWriteDeferral} follows, the
	 * cancel is made when the transaction commits, and this returns whether the task is pending now.
	 */
	@Override
	public boolean cancel(String taskId) {
		requireId(taskId);
		if (consumers.deferral().defers(name)) {
			consumers.deferral().defer(TaskWrite.cancel(name, taskId));
			return contains(taskId);
		}
		return cancelNow(taskId);
	}

	/** Cancels now. */
	boolean cancelNow(String taskId) {
		Long existed = engine.await(engine.eval(TaskScripts.CANCEL, ScriptOutputType.INTEGER, keys.all, taskId,
				keys.channel), "cancel of task '" + taskId + "'");
		return existed != null && existed == 1L;
	}

	@Override
	public boolean reschedule(String taskId, Duration delay) {
		return reschedule(taskId, "in", ScheduleArguments.delayMillis(delay));
	}

	@Override
	public boolean reschedule(String taskId, Instant dueAt) {
		return reschedule(taskId, "at", ScheduleArguments.dueMillis(dueAt));
	}

	private boolean reschedule(String taskId, String mode, long time) {
		requireId(taskId);
		if (consumers.deferral().defers(name)) {
			consumers.deferral().defer(TaskWrite.reschedule(name, taskId, delay(mode, time), dueAt(mode, time)));
			return contains(taskId);
		}
		return rescheduleNow(taskId, mode, time);
	}

	/** Reschedules now. */
	boolean rescheduleNow(String taskId, String mode, long time) {
		Long due = engine.await(engine.eval(TaskScripts.RESCHEDULE, ScriptOutputType.INTEGER, keys.all, taskId, mode,
				Long.toString(time), keys.channel), "reschedule of task '" + taskId + "'");
		return due != null && due >= 0;
	}

	/**
	 * Makes a write now, whatever the client's deferral says: a write that was deferred.
	 * @param write the write, of this queue
	 */
	public void apply(TaskWrite write) {
		String mode = (write.delayMillis() >= 0) ? "in" : "at";
		long time = (write.delayMillis() >= 0) ? write.delayMillis() : write.dueAtMillis();
		switch (write.kind()) {
			case SCHEDULE -> store(write.taskId(), Objects.requireNonNull(write.payload()), mode, time,
					write.replace());
			case CANCEL -> cancelNow(write.taskId());
			case RESCHEDULE -> rescheduleNow(write.taskId(), mode, time);
		}
	}

	@Override
	public boolean contains(String taskId) {
		requireId(taskId);
		return Boolean.TRUE.equals(engine.await(engine.commands(keys.tasks).hexists(keys.tasks, taskId), "task '" + taskId + "'"));
	}

	@Override
	public Optional<Instant> dueAt(String taskId) {
		requireId(taskId);
		Long due = engine.await(engine.eval(TaskScripts.DUE, ScriptOutputType.INTEGER, new String[] { keys.due,
				keys.meta }, taskId), "due time of task '" + taskId + "'");
		return (due != null && due >= 0) ? Optional.of(Instant.ofEpochMilli(due)) : Optional.empty();
	}

	@Override
	public long size() {
		Long size = engine.await(engine.commands(keys.tasks).hlen(keys.tasks), "size of queue '" + name + "'");
		return (size != null) ? size : 0;
	}

	@Override
	public List<PendingTask<T>> list(int offset, int count) {
		if (offset < 0 || count < 0) {
			throw new IllegalArgumentException("offset and count must not be negative: " + offset + ", " + count);
		}
		if (count == 0) {
			return List.of();
		}
		List<Object> reply = engine.await(engine.eval(TaskScripts.LIST, ScriptOutputType.MULTI, new String[] { keys.due,
				keys.tasks }, Integer.toString(offset), Integer.toString(count)), "list of queue '" + name + "'");
		List<PendingTask<T>> tasks = new ArrayList<>(reply.size() / 3);
		for (int i = 0; i + 2 < reply.size(); i += 3) {
			long due = (long) Double.parseDouble((String) reply.get(i + 1));
			tasks.add(new PendingTask<>((String) reply.get(i), Instant.ofEpochMilli(due),
					codec.decode((String) reply.get(i + 2))));
		}
		return tasks;
	}

	@Override
	public List<DeadLetter> deadLetters() {
		return deadLetters.all();
	}

	@Override
	public List<DeadLetter> deadLetters(int offset, int limit) {
		requirePage("dead letters", offset, limit);
		return deadLetters.page(offset, limit, 0);
	}

	@Override
	public List<DeadLetter> deadLetters(int offset, int limit, int payloadBytes) {
		requirePage("dead letters", offset, limit);
		requireExcerpt(payloadBytes);
		return deadLetters.page(offset, limit, payloadBytes);
	}

	@Override
	public Optional<DeadLetter> deadLetter(String taskId) {
		requireId(taskId);
		List<Object> fields = oneTask(taskId, "dead");
		return fields.isEmpty() ? Optional.empty() : Optional.of(DeadLetters.deadLetter(fields, 0));
	}

	@Override
	public long deadLetterCount() {
		return deadLetters.count();
	}

	@Override
	public long requeueDeadLetters(Instant failedFrom, Instant failedTo) {
		return deadLetters.requeue(failedFrom, failedTo);
	}

	@Override
	public long purgeDeadLetters(Instant failedBefore) {
		return deadLetters.purge(failedBefore);
	}

	@Override
	public boolean requeueDeadLetter(String taskId) {
		requireId(taskId);
		return deadLetters.requeue(taskId);
	}

	@Override
	public boolean deleteDeadLetter(String taskId) {
		requireId(taskId);
		return deadLetters.delete(taskId);
	}

	@Override
	public TaskConsumer consume(TaskHandler<T> handler) {
		return consume(handler, consumers.defaults(name));
	}

	@Override
	public TaskConsumer consume(TaskHandler<T> handler, ConsumerOptions options) {
		if (handler == null || options == null) {
			throw new IllegalArgumentException("The handler and the options must not be null");
		}
		ClaimCall claims = new ClaimCall(engine, keys, options, consumers.consumerId(), consumers.claimAhead(),
				consumers::taskFormat);
		TaskRun<T> run = new TaskRun<>(name, keys, engine, codec, handler, options,
				consumers.deadLetterRetentionMillis(), consumers.newerFormatGraceMillis(), consumers.listener(),
				consumers.tracing());
		ClaimExtension extension = new ClaimExtension(name, keys, engine, options.visibilityTimeout());
		// Without limits, tasks deferred by consumers with limits (before a deploy removed them) are made due.
		Runnable stopReleasing = options.limits().limited() ? () -> {
		} : DeferredRelease.start(name, keys, engine, consumers.sweepInterval());
		TaskConsumer consumer;
		try {
			consumer = consumers.start(name, options.limits(), stop -> new DueTaskDispatcher<>(name, keys, engine, claims,
					run, extension, consumers, () -> {
						stopReleasing.run();
						stop.run();
					}));
		}
		catch (RuntimeException ex) {
			stopReleasing.run();
			throw ex;
		}
		// After a deploy: tasks written by the previous version that this one cannot read, said before they are due.
		consumers.payloadCheck(name, () -> PayloadSampler.check(name, this, codec));
		PayloadSampler.checkLater(name, this, codec);
		return consumer;
	}

	@Override
	public List<QueuedTask> pendingTasks(int offset, int limit) {
		requirePage("pending tasks", offset, limit);
		return pendingPage(offset, limit, 0);
	}

	@Override
	public List<QueuedTask> pendingTasks(int offset, int limit, int payloadBytes) {
		requirePage("pending tasks", offset, limit);
		requireExcerpt(payloadBytes);
		return pendingPage(offset, limit, payloadBytes);
	}

	private List<QueuedTask> pendingPage(int offset, int limit, int payloadBytes) {
		List<Object> page = engine.await(engine.eval(TaskScripts.PENDING_PAGE, ScriptOutputType.MULTI,
				new String[] { keys.due, keys.tasks, keys.meta }, Integer.toString(offset), Integer.toString(limit),
				Integer.toString(payloadBytes)), "pending tasks of '" + name + "'");
		List<QueuedTask> tasks = new ArrayList<>(page.size() / 6);
		for (int i = 0; i + 5 < page.size(); i += 6) {
			tasks.add(queuedTask(page, i));
		}
		return tasks;
	}

	@Override
	public Optional<QueuedTask> pendingTask(String taskId) {
		requireId(taskId);
		List<Object> fields = oneTask(taskId, "pending");
		return fields.isEmpty() ? Optional.empty() : Optional.of(queuedTask(fields, 0));
	}

	/** A task's fields as the scripts return them (addPendingTask, task-excerpt.lua), from {@code i}. */
	private static QueuedTask queuedTask(List<Object> fields, int i) {
		String error = (String) fields.get(i + 3);
		return new QueuedTask((String) fields.get(i), Instant.ofEpochMilli((Long) fields.get(i + 1)),
				((Long) fields.get(i + 2)).intValue(), error.isEmpty() ? null : error, (String) fields.get(i + 4),
				(Long) fields.get(i + 5));
	}

	/** The fields of one pending task or dead letter, the payload cut at the largest a task may have. */
	private List<Object> oneTask(String taskId, String which) {
		return engine.await(engine.eval(TaskScripts.ONE, ScriptOutputType.MULTI, keys.oneTask, taskId,
				Integer.toString(consumers.maxPayloadBytes()), which), "task '" + taskId + "' of '" + name + "'");
	}

	@Override
	public QueueStats stats() {
		return QueueCatalog.stats(engine, List.of(name)).get(0);
	}

	static void requirePage(String what, int offset, int limit) {
		if (offset < 0 || limit < 1 || limit > MAX_DEAD_LETTER_PAGE) {
			throw new IllegalArgumentException("A page of " + what + " needs an offset of 0 or more and a limit from 1 to "
					+ MAX_DEAD_LETTER_PAGE + ": offset " + offset + ", limit " + limit);
		}
	}

	/** The most bytes of each payload a page may ask for. */
	static final int MAX_PAYLOAD_EXCERPT = 65_536;

	static void requireExcerpt(int payloadBytes) {
		if (payloadBytes < 1 || payloadBytes > MAX_PAYLOAD_EXCERPT) {
			throw new IllegalArgumentException("A page's payloads are cut to from 1 to " + MAX_PAYLOAD_EXCERPT
					+ " bytes: " + payloadBytes);
		}
	}

	static void requireId(@Nullable String taskId) {
		if (taskId == null || taskId.isBlank()) {
			throw new IllegalArgumentException("A task id must not be null or blank");
		}
		WardenNames.requireSafe(taskId, "task id");
	}

}
