package dev.warden.task.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

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
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link DelayedQueue} on Redis. Instances are cheap views of one queue; the state is in Redis and
 * in the client's consumers.
 *
 * @param <T> the payload type
 */
public final class RedisDelayedQueue<T> implements DelayedQueue<T> {

	/** The prefix of every queue's keys. */
	public static final String KEY_PREFIX = "warden:task:";

	/** How many keys one {@code SCAN} for queue names looks at. */
	private static final int SCAN_COUNT = 1_000;

	/** How many {@code SCAN} calls one search for queue names makes at most. */
	private static final int MAX_SCAN_CALLS = 100_000;

	/** The largest page of dead letters or pending tasks one call reads. */
	public static final int MAX_DEAD_LETTER_PAGE = 1_000;

	/** How many dead letters one script call requeues or purges at most. */
	private static final int DEAD_LETTER_BATCH = 500;

	/** The latest time a script is given (epoch ms stays exact in Lua's doubles): the year 9999. */
	private static final Instant MAX_SCRIPT_INSTANT = Instant.parse("9999-12-31T23:59:59.999Z");

	private final String name;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final PayloadCodec<T> codec;

	private final JsonMapper mapper;

	private final Consumers consumers;

	/**
	 * @param name the queue's name
	 * @param engine the client's engine
	 * @param codec turns payloads into stored text and back
	 * @param mapper reads dead letters
	 * @param consumers the client's consumers
	 */
	public RedisDelayedQueue(String name, RedisEngine engine, PayloadCodec<T> codec, JsonMapper mapper,
			Consumers consumers) {
		this.keys = new QueueKeys(KEY_PREFIX, name);
		this.name = name;
		this.engine = engine;
		this.codec = codec;
		this.mapper = mapper;
		this.consumers = consumers;
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
		return Boolean.TRUE.equals(engine.await(engine.commands().hexists(keys.tasks, taskId), "task '" + taskId + "'"));
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
		Long size = engine.await(engine.commands().hlen(keys.tasks), "size of queue '" + name + "'");
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
		Map<String, String> letters = engine.await(engine.commands().hgetall(keys.dead), "dead letters of '" + name + "'");
		return letters.values()
			.stream()
			.map(this::readDeadLetter)
			.sorted(Comparator.comparing(DeadLetter::failedAt))
			.toList();
	}

	private DeadLetter readDeadLetter(String json) {
		JsonNode letter = mapper.readTree(json);
		JsonNode payload = letter.get("payload");
		return new DeadLetter(letter.get("id").asString(), (payload != null && payload.isString()) ? payload.asString() : null,
				letter.get("attempts").asInt(), letter.get("error").asString(),
				Instant.ofEpochMilli(letter.get("failedAt").asLong()));
	}

	@Override
	public List<DeadLetter> deadLetters(int offset, int limit) {
		requirePage("dead letters", offset, limit);
		List<Object> page = engine.await(engine.eval(TaskScripts.DEAD_PAGE, ScriptOutputType.MULTI, keys.deadLetters,
				Integer.toString(offset), Integer.toString(limit)), "dead letters of '" + name + "'");
		List<DeadLetter> letters = new ArrayList<>(page.size());
		for (int i = 1; i < page.size(); i++) {
			letters.add(readDeadLetter((String) page.get(i)));
		}
		return letters;
	}

	@Override
	public long deadLetterCount() {
		Long count = engine.await(engine.commands().hlen(keys.dead), "dead letters of '" + name + "'");
		return (count != null) ? count : 0;
	}

	@Override
	public long requeueDeadLetters(Instant failedFrom, Instant failedTo) {
		long from = epochMillis(failedFrom, "failedFrom");
		long to = epochMillis(failedTo, "failedTo");
		long requeued = 0;
		// In batches, so that no script call holds Redis for long; a batch that puts nothing back
		// (every one of its letters is pending again) ends it.
		while (true) {
			List<Long> batch = engine.await(engine.eval(TaskScripts.DEAD_REQUEUE, ScriptOutputType.MULTI,
					keys.deadLettersRequeue, Long.toString(from), Long.toString(to), Integer.toString(DEAD_LETTER_BATCH),
					keys.channel), "requeue of the dead letters of '" + name + "'");
			requeued += batch.get(0);
			if (batch.get(1) < DEAD_LETTER_BATCH || batch.get(0) == 0) {
				return requeued;
			}
		}
	}

	@Override
	public long purgeDeadLetters(Instant failedBefore) {
		long before = epochMillis(failedBefore, "failedBefore");
		long purged = 0;
		while (true) {
			Long batch = engine.await(engine.eval(TaskScripts.DEAD_PURGE, ScriptOutputType.INTEGER, keys.deadLetters, "",
					Long.toString(before), Integer.toString(DEAD_LETTER_BATCH)), "purge of the dead letters of '" + name + "'");
			purged += (batch != null) ? batch : 0;
			if (batch == null || batch < DEAD_LETTER_BATCH) {
				return purged;
			}
		}
	}

	/** An instant as epoch milliseconds for a script, {@link Instant#MIN} and {@link Instant#MAX} included. */
	private static long epochMillis(Instant instant, String what) {
		if (instant == null) {
			throw new IllegalArgumentException(what + " must not be null");
		}
		if (instant.isAfter(MAX_SCRIPT_INSTANT)) {
			return MAX_SCRIPT_INSTANT.toEpochMilli();
		}
		if (instant.isBefore(Instant.EPOCH)) {
			return 0;
		}
		return instant.toEpochMilli();
	}

	@Override
	public boolean requeueDeadLetter(String taskId) {
		requireId(taskId);
		Long requeued = engine.await(engine.eval(TaskScripts.REQUEUE_DEAD, ScriptOutputType.INTEGER,
				keys.deadLetterRequeue, taskId, keys.channel), "requeue of task '" + taskId + "'");
		return requeued != null && requeued == 1L;
	}

	@Override
	public boolean deleteDeadLetter(String taskId) {
		requireId(taskId);
		Long deleted = engine.await(engine.eval(TaskScripts.DEAD_PURGE, ScriptOutputType.INTEGER, keys.deadLetters,
				taskId, "0", "0"), "dead letter '" + taskId + "'");
		return deleted != null && deleted == 1L;
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
		ClaimCall claims = new ClaimCall(engine, keys, options, consumers.consumerId(), consumers.claimAhead());
		TaskRun<T> run = new TaskRun<>(name, keys, engine, codec, handler, options,
				consumers.deadLetterRetentionMillis(), consumers.listener(), consumers.tracing());
		ClaimExtension extension = new ClaimExtension(name, keys, engine, options.visibilityTimeout());
		return consumers.start(name,
				stop -> new DueTaskDispatcher<>(name, keys, engine, claims, run, extension, consumers, stop));
	}

	@Override
	public List<QueuedTask> pendingTasks(int offset, int limit) {
		requirePage("pending tasks", offset, limit);
		List<Object> page = engine.await(engine.eval(TaskScripts.PENDING_PAGE, ScriptOutputType.MULTI,
				new String[] { keys.due, keys.tasks, keys.meta }, Integer.toString(offset), Integer.toString(limit)),
				"pending tasks of '" + name + "'");
		List<QueuedTask> tasks = new ArrayList<>(page.size() / 5);
		for (int i = 0; i + 4 < page.size(); i += 5) {
			String error = (String) page.get(i + 3);
			tasks.add(new QueuedTask((String) page.get(i), Instant.ofEpochMilli((Long) page.get(i + 1)),
					((Long) page.get(i + 2)).intValue(), error.isEmpty() ? null : error, (String) page.get(i + 4)));
		}
		return tasks;
	}

	@Override
	public QueueStats stats() {
		return stats(engine, List.of(name)).get(0);
	}

	/**
	 * The counts of several queues: the script calls go out together, one per queue, and their
	 * replies are read after, so that many queues cost about one round trip.
	 * @param engine the client's engine
	 * @param names the queues
	 * @return their counts, in the order of {@code names}
	 */
	public static List<QueueStats> stats(RedisEngine engine, Collection<String> names) {
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(names.size());
		for (String queue : names) {
			QueueKeys queueKeys = new QueueKeys(KEY_PREFIX, queue);
			replies.add(engine.eval(TaskScripts.STATS, ScriptOutputType.MULTI,
					new String[] { queueKeys.due, queueKeys.inflight, queueKeys.dead }));
		}
		List<QueueStats> stats = new ArrayList<>(names.size());
		int i = 0;
		for (String queue : names) {
			List<Long> counts = engine.await(replies.get(i++), "counts of queue '" + queue + "'");
			long next = counts.get(3);
			stats.add(new QueueStats(queue, counts.get(0), counts.get(1), counts.get(2),
					(next >= 0) ? Instant.ofEpochMilli(next) : null));
		}
		return stats;
	}

	/**
	 * The names of the queues that have keys in Redis, whichever clients use them, found with
	 * {@code SCAN} (on every master of a cluster) over the queues' key pattern.
	 * @param engine the client's engine
	 * @param max how many names to return at most
	 * @return the names, sorted
	 */
	public static SortedSet<String> queueNames(RedisEngine engine, int max) {
		SortedSet<String> names = new TreeSet<>();
		ScanArgs args = ScanArgs.Builder.matches(KEY_PREFIX + "{*}:*").limit(SCAN_COUNT);
		KeyScanCursor<String> cursor = engine.await(engine.commands().scan(args), "scan for queues");
		// Bounded: each call walks SCAN_COUNT slots of the keyspace, and the names are capped.
		for (int calls = 1; calls <= MAX_SCAN_CALLS; calls++) {
			for (String key : cursor.getKeys()) {
				int close = key.indexOf("}:", KEY_PREFIX.length());
				if (close > KEY_PREFIX.length() + 1 && names.size() < max) {
					names.add(key.substring(KEY_PREFIX.length() + 1, close));
				}
			}
			if (cursor.isFinished() || names.size() >= max) {
				break;
			}
			cursor = engine.await(engine.commands().scan(cursor, args), "scan for queues");
		}
		return names;
	}

	private static void requirePage(String what, int offset, int limit) {
		if (offset < 0 || limit < 1 || limit > MAX_DEAD_LETTER_PAGE) {
			throw new IllegalArgumentException("A page of " + what + " needs an offset of 0 or more and a limit from 1 to "
					+ MAX_DEAD_LETTER_PAGE + ": offset " + offset + ", limit " + limit);
		}
	}

	private static void requireId(@Nullable String taskId) {
		if (taskId == null || taskId.isBlank()) {
			throw new IllegalArgumentException("A task id must not be null or blank");
		}
	}

}
