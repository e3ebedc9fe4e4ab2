package dev.warden.actuate;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.warden.RedisMemory;
import dev.warden.Warden;
import dev.warden.WardenNames;
import dev.warden.lock.DistributedMutex;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.QueueStats;
import dev.warden.task.TaskLimits;
import dev.warden.task.QueuedTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator sees of one {@link Warden} client and does with it, for the Actuator endpoint
 * and the dashboard: the client, the locks this instance holds through
 * {@link dev.warden.lock.annotation.DistributedLock}, the Warden instances live on its Redis (their
 * versions and stored formats), every queue in Redis with its counts, one
 * queue's pending tasks and dead letters a page at a time, and, when write operations are allowed,
 * re-driving and purging dead letters and cancelling pending tasks. Times are ISO-8601 text, so
 * that any JSON mapper writes them the same way.
 */
public final class WardenAdmin {

	private static final Logger logger = LoggerFactory.getLogger(WardenAdmin.class);

	/** How many queue names the overview lists at most. */
	public static final int MAX_QUEUES = 1_000;

	/** The page size when none is asked for. */
	public static final int DEFAULT_PAGE = 20;

	/**
	 * How many UTF-8 bytes of each payload a page of a queue shows: a page carries excerpts and each
	 * payload's size, and {@link #task(String, String)} one task's whole payload.
	 */
	public static final int PAYLOAD_EXCERPT_BYTES = 256;

	/**
	 * How long the queue names found by a scan are reused: a scan walks the whole keyspace, and the
	 * dashboard asks for the overview every few seconds.
	 */
	static final long NAMES_REUSED_NANOS = TimeUnit.SECONDS.toNanos(30);

	/**
	 * How long the counts of in-use limiters of a keyed {@code @RateLimited} name are reused: each count
	 * scans the whole keyspace, and the dashboard asks for the overview every few seconds.
	 */
	static final long LIMITER_COUNTS_REUSED_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** How many in-use limiters of one keyed name the overview counts at most. */
	static final int MAX_LIMITERS_COUNTED = 1_000;

	private final Warden warden;

	private volatile @Nullable HealthMonitor monitor;

	private final String topology;

	private volatile IntSupplier lockWaiters = () -> 0;

	private volatile Supplier<List<LockHold>> lockHolds = List::of;

	private volatile Supplier<List<RateLimitedMethod>> rateLimits = List::of;

	private final boolean writeOperations;

	private volatile WriteScope writeScope = WriteScope.CONSUMED_QUEUES;

	private volatile Function<String, Map<String, Double>> lateness = queue -> Map.of();

	private final Reused<SortedSet<String>> queueNames = new Reused<>(NAMES_REUSED_NANOS);

	private final Map<String, Reused<Long>> limitersInUse = new ConcurrentHashMap<>();

	/**
	 * @param warden the client
	 * @param topology where Redis is, for display
	 * @param writeOperations whether write operations are allowed
	 */
	public WardenAdmin(Warden warden, String topology, boolean writeOperations) {
		this.warden = warden;
		this.topology = topology;
		this.writeOperations = writeOperations;
	}

	/**
	 * Where this instance's {@code @DistributedLock} calls come from; without them the overview shows
	 * no held lock and no waiter.
	 * @param waiters how many calls wait for their locks now
	 * @param holds the calls that hold their locks now
	 */
	public void setLockCalls(IntSupplier waiters, Supplier<List<LockHold>> holds) {
		this.lockWaiters = waiters;
		this.lockHolds = holds;
	}

	/**
	 * Where each queue's lateness figures come from: the metrics, when the application has them.
	 * @param lateness a queue's figures in ms, by name (percentiles such as p50 and p99 when
	 * configured, mean, max), empty when unknown
	 */
	public void setLateness(Function<String, Map<String, Double>> lateness) {
		this.lateness = lateness;
	}

	/** {@return whether write operations are allowed ({@code warden.endpoint.write-operations})} */
	public boolean writeOperations() {
		return writeOperations;
	}

	/**
	 * Which queues the write operations may change ({@code warden.endpoint.write-scope}): only those
	 * this application consumes unless told otherwise.
	 * @param writeScope the queues writes may change
	 */
	public void setWriteScope(WriteScope writeScope) {
		this.writeScope = writeScope;
	}

	/** {@return which queues the write operations may change} */
	public WriteScope writeScope() {
		return writeScope;
	}

	/**
	 * The client, the locks held here, the Warden instances live on this Redis, and every queue in Redis
	 * with its counts.
	 * @return the overview
	 */
	public Overview overview() {
		Set<String> consumed = warden.consumedQueues();
		SortedSet<String> names = new TreeSet<>(queueNames());
		names.addAll(consumed);
		List<QueueSummary> queues = new ArrayList<>(names.size());
		for (QueueStats stats : warden.queueStats(names)) {
			queues.add(summary(stats, consumed.contains(stats.queue())));
		}
		List<HeldLock> locks = new ArrayList<>();
		int waiting = lockWaiters.getAsInt();
		for (LockHold hold : lockHolds.get()) {
			locks.add(new HeldLock(hold.names(), hold.kind(), hold.method(), hold.since().toString(),
					leaseLeft(hold.locks())));
		}
		List<FleetInstance> fleet = new ArrayList<>();
		for (dev.warden.FleetMember member : warden.fleet()) {
			fleet.add(new FleetInstance(member.clientId(), member.version(), member.reads(), member.writes(),
					member.startedAt().toString(), member.expiresAt().toString(),
					member.clientId().equals(warden.getClientId())));
		}
		return new Overview(warden.getClientId(), topology, writeOperations, waiting, locks, queues, rateLimits(), fleet,
				warden.writeFormats());
	}

	/**
	 * Where the {@code @RateLimited} methods come from.
	 * @param methods the application's annotated methods, asked for at each overview
	 */
	public void setRateLimits(Supplier<List<RateLimitedMethod>> methods) {
		this.rateLimits = methods;
	}

	/** One line per {@code @RateLimited} name, with its state in Redis. */
	private List<RateLimitSummary> rateLimits() {
		Map<String, List<RateLimitedMethod>> byName = new TreeMap<>();
		for (RateLimitedMethod method : rateLimits.get()) {
			byName.computeIfAbsent(method.name(), name -> new ArrayList<>()).add(method);
		}
		List<RateLimitSummary> summaries = new ArrayList<>(byName.size());
		byName.forEach((name, operations) -> {
			RateLimitedMethod first = operations.get(0);
			boolean keyed = first.keyed();
			List<String> methods = operations.stream().map(RateLimitedMethod::method).sorted().toList();
			Long available = keyed ? null : warden.getRateLimiter(name, first.limit()).availablePermits();
			Long inUse = keyed ? limitersInUse(name) : null;
			summaries.add(new RateLimitSummary(name, first.limit().permits(), first.limit().period().toString(),
					first.limit().burst(), keyed, methods, available, inUse));
		});
		return summaries;
	}

	/** The queues in Redis, scanned at most once per {@link #NAMES_REUSED_NANOS}. */
	private SortedSet<String> queueNames() {
		return queueNames.get(() -> warden.queueNames(MAX_QUEUES));
	}

	/**
	 * How many limiters of a keyed name are in use, counted at most once per
	 * {@link #LIMITER_COUNTS_REUSED_NANOS}.
	 */
	private long limitersInUse(String name) {
		return limitersInUse.computeIfAbsent(name, key -> new Reused<>(LIMITER_COUNTS_REUSED_NANOS))
			.get(() -> warden.rateLimitersInUse(name + ":", MAX_LIMITERS_COUNTED));
	}

	/** The shortest lease left among the locks, in ms; -1 under the watchdog, -2 when one is gone. */
	private static long leaseLeft(List<DistributedMutex> locks) {
		long least = Long.MAX_VALUE;
		for (DistributedMutex lock : locks) {
			try {
				least = Math.min(least, lock.remainingTimeToLive());
			}
			catch (RuntimeException ex) {
				logger.debug("Could not read the lease of '{}'", lock.getName(), ex);
			}
		}
		return (least == Long.MAX_VALUE) ? -2 : least;
	}

	/**
	 * One page of a queue's pending tasks and one of its dead letters, with the queue's counts. Each
	 * carries the first {@value #PAYLOAD_EXCERPT_BYTES} bytes of its payload and the payload's size:
	 * read one task's whole payload with {@link #task(String, String)}.
	 * @param queue the queue's name
	 * @param offset how many of each to skip; not negative
	 * @param limit how many of each at most; from 1 to 1,000
	 * @return the page
	 */
	public QueuePage queue(String queue, int offset, int limit) {
		requireQueueName(queue);
		DelayedQueue<Object> tasks = warden.getDelayedQueue(queue);
		QueueSummary summary = summary(tasks.stats(), warden.consumedQueues().contains(queue));
		List<PendingTaskView> pending = new ArrayList<>();
		for (QueuedTask task : tasks.pendingTasks(offset, limit, PAYLOAD_EXCERPT_BYTES)) {
			pending.add(PendingTaskView.of(task));
		}
		List<DeadLetterView> dead = new ArrayList<>();
		for (DeadLetter letter : tasks.deadLetters(offset, limit, PAYLOAD_EXCERPT_BYTES)) {
			dead.add(DeadLetterView.of(letter));
		}
		return new QueuePage(summary, offset, limit, pending, dead);
	}

	/**
	 * One task of a queue with its whole payload (up to {@code warden.delayed-task.max-payload-size}):
	 * the pending task and the dead letter of that id.
	 * @param queue the queue's name
	 * @param taskId the task id
	 * @return the task, or empty when the queue has neither a pending task nor a dead letter of that id
	 */
	public java.util.Optional<TaskView> task(String queue, String taskId) {
		DelayedQueue<Object> tasks = warden.getDelayedQueue(queue);
		PendingTaskView pending = tasks.pendingTask(taskId).map(PendingTaskView::of).orElse(null);
		DeadLetterView dead = tasks.deadLetter(taskId).map(DeadLetterView::of).orElse(null);
		return (pending == null && dead == null) ? java.util.Optional.empty()
				: java.util.Optional.of(new TaskView(queue, taskId, pending, dead));
	}

	/**
	 * Reads a consumed queue's earliest pending tasks and latest dead letters with the classes
	 * deployed now, and says which it cannot read (logged at WARN too).
	 * @param queue the queue's name
	 * @return what it found, or empty when this instance does not consume the queue
	 */
	public java.util.Optional<dev.warden.task.PayloadCheck> checkPayloads(String queue) {
		requireQueueName(queue);
		return warden.checkPayloads(queue);
	}

	/**
	 * Puts dead letters back in their queue, due now with their attempts reset: one, or every one that
	 * failed within a range (all of them without one).
	 * @param queue the queue's name
	 * @param taskId the one dead letter, or {@code null} for a range
	 * @param failedFrom the range's start, inclusive (ISO-8601), or {@code null} for the first
	 * @param failedTo the range's end, exclusive (ISO-8601), or {@code null} for now and later
	 * @return what was done
	 */
	public WriteResult redrive(String queue, @Nullable String taskId, @Nullable String failedFrom,
			@Nullable String failedTo) {
		requireQueueName(queue);
		requireWrites(queue);
		DelayedQueue<Object> tasks = warden.getDelayedQueue(queue);
		long count;
		if (taskId != null) {
			count = tasks.requeueDeadLetter(taskId) ? 1 : 0;
		}
		else {
			count = tasks.requeueDeadLetters(instant("failedFrom", failedFrom, Instant.EPOCH),
					instant("failedTo", failedTo, Instant.MAX));
		}
		logger.info("Operator re-drove {} dead letter(s) of queue '{}'{}", count, queue,
				(taskId != null) ? " (task '" + taskId + "')" : "");
		return new WriteResult("redrive", queue, count);
	}

	/**
	 * Deletes dead letters: one, or every one that failed before a time (all of them without one).
	 * @param queue the queue's name
	 * @param taskId the one dead letter, or {@code null}
	 * @param failedBefore the time, exclusive (ISO-8601), or {@code null} for all
	 * @return what was done
	 */
	public WriteResult purge(String queue, @Nullable String taskId, @Nullable String failedBefore) {
		requireQueueName(queue);
		requireWrites(queue);
		DelayedQueue<Object> tasks = warden.getDelayedQueue(queue);
		long count = (taskId != null) ? (tasks.deleteDeadLetter(taskId) ? 1 : 0)
				: tasks.purgeDeadLetters(instant("failedBefore", failedBefore, Instant.MAX));
		logger.info("Operator purged {} dead letter(s) of queue '{}'", count, queue);
		return new WriteResult("purge", queue, count);
	}

	/**
	 * Cancels a pending task.
	 * @param queue the queue's name
	 * @param taskId the task
	 * @return what was done
	 */
	public WriteResult cancel(String queue, String taskId) {
		requireQueueName(queue);
		requireWrites(queue);
		long count = warden.getDelayedQueue(queue).cancel(taskId) ? 1 : 0;
		logger.info("Operator cancelled task '{}' of queue '{}': {}", taskId, queue, (count > 0) ? "done" : "not pending");
		return new WriteResult("cancel", queue, count);
	}

	/**
	 * Refuses a queue name that no queue can have before it reaches a key or a log line (the
	 * operator's URL is input like any other): a control character, such as an encoded line break
	 * that would write a line of its own into the audit log, or too many characters.
	 */
	private static void requireQueueName(String queue) {
		WardenNames.requireSafe(queue, "queue name");
	}

	private void requireWrites(String queue) {
		if (!writeOperations) {
			throw new WriteOperationsDisabledException();
		}
		if (!writable(warden.consumedQueues().contains(queue))) {
			throw new WriteOperationsDisabledException("Queue '" + queue + "' is not consumed by this application, "
					+ "and write operations change only the queues it consumes: re-drive, purge or cancel from an "
					+ "application that consumes it, or set warden.endpoint.write-scope=all-queues");
		}
	}

	private boolean writable(boolean consumedHere) {
		return writeOperations && (writeScope == WriteScope.ALL_QUEUES || consumedHere);
	}

	private static Instant instant(String name, @Nullable String text, Instant otherwise) {
		if (text == null || text.isBlank()) {
			return otherwise;
		}
		try {
			return Instant.parse(text.trim());
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException(name + " must be an ISO-8601 instant such as 2026-11-24T18:00:00Z: " + text);
		}
	}

	private QueueSummary summary(QueueStats stats, boolean consumedHere) {
		String limits = warden.queueLimits(stats.queue()).filter(TaskLimits::limited).map(TaskLimits::toString)
			.orElse(null);
		return new QueueSummary(stats.queue(), stats.pending(), stats.inFlight(), stats.deadLetters(),
				(stats.nextDueAt() != null) ? stats.nextDueAt().toString() : null, consumedHere,
				lateness.apply(stats.queue()), stats.deferred(), limits, writable(consumedHere));
	}

	/**
	 * What Warden's health is, for a health indicator: the background check's finding, which never
	 * waits on Redis (see {@link HealthMonitor}).
	 * @return what was found
	 */
	public HealthCheck health() {
		HealthMonitor current = monitor;
		if (current == null) {
			throw new IllegalStateException("No health monitor: the health indicator is not configured");
		}
		return current.current();
	}

	/**
	 * Gives the admin the monitor its {@link #health()} reads.
	 * @param monitor the monitor, which runs the checks
	 */
	public void setHealthMonitor(HealthMonitor monitor) {
		this.monitor = monitor;
	}

	/**
	 * A write operation was asked for while {@code warden.endpoint.write-operations} is false, or on a
	 * queue outside {@code warden.endpoint.write-scope}.
	 */
	public static final class WriteOperationsDisabledException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		WriteOperationsDisabledException() {
			this("Write operations are off: set warden.endpoint.write-operations=true to re-drive, purge or cancel");
		}

		WriteOperationsDisabledException(String message) {
			super(message);
		}

	}

	/**
	 * The client and what it sees.
	 *
	 * @param clientId the client's id, the prefix of its lock owners and claim tokens
	 * @param topology where Redis is
	 * @param writeOperations whether write operations are allowed
	 * @param lockWaiters how many annotated calls wait for their locks here now
	 * @param locks the locks annotated calls hold here now, the longest held first
	 * @param queues every queue in Redis (and those consumed here), by name
	 * @param rateLimits the application's {@code @RateLimited} names, with their state in Redis
	 * @param fleet the Warden instances live on this Redis, this one included, as they announced
	 * themselves: during a rolling deploy, the old and the new version side by side
	 * @param writeFormats the stored format this instance writes of each family of keys: the newest
	 * every live instance reads
	 */
	public record Overview(String clientId, String topology, boolean writeOperations, int lockWaiters,
			List<HeldLock> locks, List<QueueSummary> queues, List<RateLimitSummary> rateLimits,
			List<FleetInstance> fleet, Map<String, Integer> writeFormats) {
	}

	/**
	 * One Warden instance live on this Redis.
	 *
	 * @param clientId its client id
	 * @param version the Warden version it runs
	 * @param reads the highest stored format it reads, per family ({@code tasks}, {@code limiters})
	 * @param writes the stored format it writes now, per family
	 * @param startedAt when it first announced itself (ISO-8601, by Redis's clock)
	 * @param expiresAt when it stops counting as live unless it announces itself again (ISO-8601)
	 * @param here whether it is this instance
	 */
	public record FleetInstance(String clientId, String version, Map<String, Integer> reads,
			Map<String, Integer> writes, String startedAt, String expiresAt, boolean here) {
	}

	/**
	 * One {@code @RateLimited} name and its state.
	 *
	 * @param name the limiter name, before the keys
	 * @param permits permits per period
	 * @param period the period (ISO-8601)
	 * @param burst how many permits a full limiter grants at once
	 * @param keyed whether each call's key has a limiter of its own
	 * @param methods the annotated methods
	 * @param available for a limiter without keys, the permits available now; {@code null} with keys
	 * @param keysInUse for a limiter with keys, how many keys' limiters are in use (not full) now,
	 * counted up to 1,000 (a count is reused for 10 s); {@code null} without keys
	 */
	public record RateLimitSummary(String name, long permits, String period, long burst, boolean keyed,
			List<String> methods, @Nullable Long available, @Nullable Long keysInUse) {
	}

	/**
	 * Locks one annotated call holds.
	 *
	 * @param names the lock names
	 * @param kind the kind of lock
	 * @param method the annotated method
	 * @param heldSince when they were acquired (ISO-8601)
	 * @param leaseLeftMillis the shortest lease left; -1 when kept by the watchdog, -2 when a lock is gone
	 */
	public record HeldLock(List<String> names, String kind, String method, String heldSince, long leaseLeftMillis) {
	}

	/**
	 * A {@code @DistributedLock} call that holds its locks, as {@link #setLockCalls} is told of it.
	 *
	 * @param names the lock names
	 * @param kind the kind of lock
	 * @param method the annotated method, described
	 * @param since when they were acquired
	 * @param locks the locks, whose leases the overview reads
	 */
	public record LockHold(List<String> names, String kind, String method, Instant since, List<DistributedMutex> locks) {
	}

	/**
	 * A {@code @RateLimited} method, as {@link #setRateLimits} is told of it.
	 *
	 * @param name the annotation's name, which the methods sharing a limit share
	 * @param limit the rate
	 * @param keyed whether the limit is one per key of the call's arguments
	 * @param method the method, described
	 */
	public record RateLimitedMethod(String name, RateLimit limit, boolean keyed, String method) {
	}

	/**
	 * A queue's counts.
	 *
	 * @param name the queue's name
	 * @param pending tasks waiting
	 * @param inFlight tasks claimed and not finished
	 * @param deadLetters tasks given up on
	 * @param nextDueAt when the first pending task is due (ISO-8601), or {@code null}
	 * @param consumedHere whether this instance consumes the queue
	 * @param latenessMillis the lateness of the deliveries run here, in ms, from the metrics: the
	 * percentiles configured for {@code warden.task.lateness} (p50, p99, …), mean and max; empty
	 * without metrics
	 * @param deferred pending tasks that were due and wait for their key to be under the queue's task limits
	 * @param limits the task limits this instance consumes the queue with, described
	 * ({@code 2 at once per key}); {@code null} when it has none or does not consume the queue
	 * @param writable whether the write operations may change the queue here: they are on, and the
	 * queue is consumed here or {@code warden.endpoint.write-scope} is {@code all-queues}
	 */
	public record QueueSummary(String name, long pending, long inFlight, long deadLetters, @Nullable String nextDueAt,
			boolean consumedHere, Map<String, Double> latenessMillis, long deferred, @Nullable String limits,
			boolean writable) {
	}

	/** Which queues the write operations may change. */
	public enum WriteScope {

		/** Only the queues this application consumes: another application's queues are its own to change. */
		CONSUMED_QUEUES,

		/** Every queue in Redis, as for a separate operations application. */
		ALL_QUEUES

	}

	/**
	 * One page of a queue.
	 *
	 * @param queue the queue's counts
	 * @param offset how many of each list were skipped
	 * @param limit how many of each list were asked for at most
	 * @param pending pending tasks in due order
	 * @param deadLetters dead letters, the most recent failure first
	 */
	public record QueuePage(QueueSummary queue, int offset, int limit, List<PendingTaskView> pending,
			List<DeadLetterView> deadLetters) {
	}

	/**
	 * One task with its whole payload.
	 *
	 * @param queue the queue's name
	 * @param id the task id
	 * @param pending the pending task of that id, or {@code null}
	 * @param deadLetter the dead letter of that id, or {@code null}
	 */
	public record TaskView(String queue, String id, @Nullable PendingTaskView pending,
			@Nullable DeadLetterView deadLetter) {
	}

	/**
	 * A pending task.
	 *
	 * @param id the task id
	 * @param dueAt when it is due (ISO-8601)
	 * @param attempts deliveries made so far
	 * @param lastError the last delivery's error, or {@code null}
	 * @param payload the payload as stored: in a page of a queue, its first
	 * {@value #PAYLOAD_EXCERPT_BYTES} bytes
	 * @param payloadSize the size of the whole payload, in UTF-8 bytes
	 * @param payloadComplete whether {@code payload} is the whole payload
	 */
	public record PendingTaskView(String id, String dueAt, int attempts, @Nullable String lastError, String payload,
			long payloadSize, boolean payloadComplete) {

		static PendingTaskView of(QueuedTask task) {
			return new PendingTaskView(task.id(), task.dueAt().toString(), task.attempts(), task.lastError(),
					task.payload(), task.payloadSize(), task.payloadComplete());
		}

	}

	/**
	 * A dead letter.
	 *
	 * @param id the task id
	 * @param failedAt when it was given up (ISO-8601)
	 * @param attempts deliveries made
	 * @param error the last error
	 * @param payload the payload as stored, or {@code null}: in a page of a queue, its first
	 * {@value #PAYLOAD_EXCERPT_BYTES} bytes
	 * @param payloadSize the size of the whole payload, in UTF-8 bytes
	 * @param payloadComplete whether {@code payload} is the whole payload
	 */
	public record DeadLetterView(String id, String failedAt, int attempts, String error, @Nullable String payload,
			long payloadSize, boolean payloadComplete) {

		static DeadLetterView of(DeadLetter letter) {
			return new DeadLetterView(letter.id(), letter.failedAt().toString(), letter.attempts(), letter.error(),
					letter.payload(), letter.payloadSize(), letter.payloadComplete());
		}

	}

	/**
	 * What a health check found.
	 *
	 * @param clientId the client's id
	 * @param up whether Redis answered on every connection
	 * @param reason why it is down, or {@code null} when up
	 * @param checkedAt when it was found
	 * @param pingMicros how long the slower {@code PING} took; -1 when down
	 * @param deadLetters the queues consumed here that hold dead letters, with their counts (as last
	 * read)
	 * @param memory Redis's memory figures, or {@code null} when not read
	 * @param memoryStatus the status to report because memory use is near {@code maxmemory}, or
	 * {@code null}
	 */
	public record HealthCheck(String clientId, boolean up, @Nullable String reason, Instant checkedAt, long pingMicros,
			Map<String, Long> deadLetters, @Nullable RedisMemory memory, @Nullable String memoryStatus) {

		/**
		 * Redis answered.
		 * @param clientId the client's id
		 * @param pingMicros how long the slower {@code PING} took
		 * @param checkedAt when it was found
		 * @param deadLetters the queues consumed here that hold dead letters, with their counts
		 * @return the check
		 */
		public static HealthCheck up(String clientId, long pingMicros, Instant checkedAt, Map<String, Long> deadLetters) {
			return new HealthCheck(clientId, true, null, checkedAt, pingMicros, Map.copyOf(deadLetters), null, null);
		}

		/**
		 * Redis did not answer, for {@code reason}.
		 * @param clientId the client's id
		 * @param reason why it is down
		 * @param checkedAt when it was found
		 * @param deadLetters the queues consumed here that hold dead letters, with their counts, as last
		 * read
		 * @return the check
		 */
		public static HealthCheck down(String clientId, String reason, Instant checkedAt, Map<String, Long> deadLetters) {
			return new HealthCheck(clientId, false, reason, checkedAt, -1, Map.copyOf(deadLetters), null, null);
		}

		/**
		 * This check with Redis's memory figures, and the status to report for them.
		 * @param memory the figures
		 * @param memoryStatus the status their use calls for (near {@code maxmemory}), or {@code null}
		 * @return this check with the memory figures and the status they call for
		 */
		public HealthCheck withMemory(RedisMemory memory, @Nullable String memoryStatus) {
			return new HealthCheck(clientId, up, reason, checkedAt, pingMicros, deadLetters, memory, memoryStatus);
		}

		/**
		 * The status to report.
		 * @param deadLetterStatus the status while a queue holds dead letters, or {@code null} for UP
		 * @return the status code
		 */
		public String status(@Nullable String deadLetterStatus) {
			if (!up) {
				return "DOWN";
			}
			if (memoryStatus != null) {
				return memoryStatus;
			}
			return (deadLetters.isEmpty() || deadLetterStatus == null) ? "UP" : deadLetterStatus;
		}

		/**
		 * The details to report: the reason when down, when it was checked, the round trip, the queues
		 * consumed here with dead letters and their counts, and Redis's memory figures. Not the client
		 * id, nor anything else of the endpoint's: health details may be shown to more callers
		 * ({@code management.endpoint.health.show-details}) than the endpoint.
		 * @return the details, by name
		 */
		public Map<String, Object> details() {
			Map<String, Object> details = new LinkedHashMap<>();
			if (reason != null) {
				details.put("reason", reason);
			}
			details.put("checkedAt", checkedAt.toString());
			if (up) {
				details.put("pingMicros", pingMicros);
			}
			details.put("deadLetters", new TreeMap<>(deadLetters));
			if (memory != null) {
				details.put("maxmemoryPolicy", memory.policy());
				details.put("usedMemory", memory.usedMemory());
				details.put("maxmemory", memory.maxMemory());
			}
			return details;
		}

	}

	/**
	 * Why a request was refused.
	 *
	 * @param message what to do about it
	 */
	public record Problem(String message) {
	}

	/**
	 * What a write operation did.
	 *
	 * @param action redrive, purge or cancel
	 * @param queue the queue
	 * @param count how many tasks or dead letters it changed
	 */
	public record WriteResult(String action, String queue, long count) {
	}

}
