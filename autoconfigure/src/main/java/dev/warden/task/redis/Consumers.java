package dev.warden.task.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import dev.warden.lock.redis.ReplicaSync;
import dev.warden.redis.RedisEngine;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.PayloadCheck;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskListener;
import dev.warden.task.TaskWriteDeferral;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The consumers of one client, at most one per queue, sharing the client's handler pool; and
 * the client's schedules of each queue.
 */
public final class Consumers implements AutoCloseable {

	private final TaskWorkers workers;

	private final String consumerId;

	private final ConsumerOptions defaults;

	private final Duration sweepInterval;

	private final Duration claimAhead;

	private final Duration shutdownGrace;

	private final int maxPayloadBytes;

	private final ReplicaSync replicaSync;

	private final Map<String, ConsumerOptions> queueOptions = new java.util.concurrent.ConcurrentHashMap<>();

	private final Map<String, DueTaskDispatcher<?>> running = new java.util.concurrent.ConcurrentHashMap<>();

	// The task limits of the running consumers, by queue.
	private final Map<String, dev.warden.task.TaskLimits> limits = new java.util.concurrent.ConcurrentHashMap<>();

	/** Reads each consumed queue's pending tasks and dead letters with its consumer's codec. */
	private final Map<String, java.util.function.Supplier<PayloadCheck>> payloadChecks =
			new java.util.concurrent.ConcurrentHashMap<>();

	private final ReentrantLock starting = new ReentrantLock();

	private volatile long deadLetterRetentionMillis = -1;

	private volatile long newerFormatGraceMillis = dev.warden.WardenDefaults.TASK_NEWER_FORMAT_GRACE.toMillis();

	private volatile TaskListener listener = TaskListener.NONE;

	private volatile TaskWriteDeferral deferral = TaskWriteDeferral.NONE;

	private volatile java.util.function.IntSupplier taskFormat = () -> dev.warden.redis.StoredFormats.FLOOR;

	private volatile TaskTracing tracing = new TaskTracing(ObservationRegistry.NOOP);

	private final Map<String, ScheduleBatcher> schedules = new java.util.concurrent.ConcurrentHashMap<>();

	/**
	 * @param workers the handler pool
	 * @param consumerId the client's id, the prefix of its claim tokens
	 * @param defaults options of consumers started without
	 * @param sweepInterval the longest a consumer sleeps without checking its queue
	 * @param claimAhead how long before its due time a consumer may claim a task
	 * @param shutdownGrace how long closing waits for running handlers
	 * @param maxPayloadBytes the largest payload a task may be scheduled with, in UTF-8 bytes
	 * @param replicaSync the durability check after each schedule
	 */
	public Consumers(TaskWorkers workers, String consumerId, ConsumerOptions defaults, Duration sweepInterval,
			Duration claimAhead, Duration shutdownGrace, int maxPayloadBytes, ReplicaSync replicaSync) {
		this.workers = workers;
		this.consumerId = consumerId;
		this.defaults = defaults;
		this.sweepInterval = sweepInterval;
		this.claimAhead = claimAhead;
		this.shutdownGrace = shutdownGrace;
		this.maxPayloadBytes = maxPayloadBytes;
		this.replicaSync = replicaSync;
	}

	int maxPayloadBytes() {
		return maxPayloadBytes;
	}

	/** How long a task of a later format waits for a reader before it becomes a dead letter, in ms. */
	long newerFormatGraceMillis() {
		return newerFormatGraceMillis;
	}

	/**
	 * How long a task written by a later version than this one reads may be left in its queue by
	 * instances that cannot read it before it becomes a dead letter.
	 * @param grace how long
	 */
	public void setNewerFormatGrace(Duration grace) {
		this.newerFormatGraceMillis = grace.toMillis();
	}

	/** How long dead letters are kept, in ms; -1: for good. */
	long deadLetterRetentionMillis() {
		return deadLetterRetentionMillis;
	}

	/**
	 * Keeps dead letters for that long after they failed: older ones are removed when another
	 * task of their queue becomes a dead letter.
	 * @param retention how long; {@code null} keeps them for good
	 */
	public void setDeadLetterRetention(@Nullable Duration retention) {
		this.deadLetterRetentionMillis = (retention != null) ? retention.toMillis() : -1;
	}

	/**
	 * Keeps the claims of deliveries in the stored format of tasks that {@code format} gives at each
	 * claim: the client's fleet says which every live instance reads ({@link dev.warden.redis.Fleet}).
	 * Until set, format 1, which every version reads.
	 * @param format the format to write, 1 or 2
	 */
	public void setTaskFormat(java.util.function.IntSupplier format) {
		this.taskFormat = format;
	}

	/** The stored format of tasks to keep claims in now. */
	int taskFormat() {
		return taskFormat.getAsInt();
	}

	/**
	 * Tells {@code listener} what this client schedules and how the deliveries it runs end.
	 * @param listener the listener
	 */
	public void setListener(TaskListener listener) {
		this.listener = listener;
	}

	TaskListener listener() {
		return listener;
	}

	/**
	 * Holds the writes that {@code deferral} defers (those made inside a transaction) until it lets
	 * them through.
	 * @param deferral the deferral
	 */
	public void setDeferral(TaskWriteDeferral deferral) {
		this.deferral = deferral;
	}

	TaskWriteDeferral deferral() {
		return deferral;
	}

	/**
	 * Makes schedules and deliveries observations of {@code registry}, and carries the trace
	 * context of the code that schedules a task to the delivery that runs it.
	 * @param registry the registry
	 */
	public void setObservationRegistry(ObservationRegistry registry) {
		this.tracing = new TaskTracing(registry);
	}

	TaskTracing tracing() {
		return tracing;
	}

	/** The options of a consumer of the queue started without its own. */
	ConsumerOptions defaults(String queue) {
		return queueOptions.getOrDefault(queue, defaults);
	}

	/**
	 * Sets the options of a queue's consumers started without their own.
	 * @param queue the queue
	 * @param options its options
	 */
	public void setQueueDefaults(String queue, ConsumerOptions options) {
		queueOptions.put(queue, options);
	}

	/** The client's schedules of one queue, sent together while a call is under way. */
	ScheduleBatcher schedules(RedisEngine engine, QueueKeys keys) {
		return schedules.computeIfAbsent(keys.due, due -> new ScheduleBatcher(engine, keys, replicaSync));
	}

	TaskWorkers workers() {
		return workers;
	}

	String consumerId() {
		return consumerId;
	}

	Duration sweepInterval() {
		return sweepInterval;
	}

	Duration claimAhead() {
		return claimAhead;
	}

	Duration shutdownGrace() {
		return shutdownGrace;
	}

	<T> TaskConsumer start(String queue, dev.warden.task.TaskLimits taskLimits,
			Function<Runnable, DueTaskDispatcher<T>> factory) {
		// A lock, not a monitor: starting waits for Redis to confirm the subscription, and a
		// virtual thread that waits inside a monitor pins its carrier on Java 21 to 23.
		starting.lock();
		try {
			if (running.containsKey(queue)) {
				throw new IllegalStateException("Queue '" + queue + "' already has a consumer on this client");
			}
			DueTaskDispatcher<T> dispatcher = factory.apply(() -> {
				running.remove(queue);
				limits.remove(queue);
				payloadChecks.remove(queue);
			});
			dispatcher.start();
			running.put(queue, dispatcher);
			limits.put(queue, taskLimits);
			listener.onConsumerStarted(queue);
			return dispatcher;
		}
		finally {
			starting.unlock();
		}
	}

	/** Registers how to read {@code queue}'s payloads as its consumer on this client does. */
	void payloadCheck(String queue, java.util.function.Supplier<PayloadCheck> check) {
		if (running.containsKey(queue)) {
			payloadChecks.put(queue, check);
		}
	}

	/**
	 * Reads the earliest pending tasks and latest dead letters of a queue this client consumes with
	 * its consumer's classes, and logs at WARN the ones it cannot read.
	 * @param queue the queue
	 * @return what it found, or empty when this client does not consume the queue
	 */
	public java.util.Optional<PayloadCheck> checkPayloads(String queue) {
		java.util.function.Supplier<PayloadCheck> check = payloadChecks.get(queue);
		return (check != null) ? java.util.Optional.of(check.get()) : java.util.Optional.empty();
	}

	/**
	 * The task limits a queue is consumed with on this client.
	 * @param queue the queue
	 * @return its limits; empty when this client does not consume it
	 */
	public java.util.Optional<dev.warden.task.TaskLimits> limits(String queue) {
		return java.util.Optional.ofNullable(limits.get(queue));
	}

	/** The queues consumed on this client. */
	public java.util.Set<String> queues() {
		return java.util.Set.copyOf(running.keySet());
	}

	/**
	 * Stops every consumer: no new claims, then one shared grace period for the running handlers.
	 * @return whether every running handler finished in time
	 */
	public boolean stopAll() {
		List<DueTaskDispatcher<?>> all = List.copyOf(running.values());
		all.forEach(DueTaskDispatcher::halt);
		long deadline = System.nanoTime() + shutdownGrace.toNanos();
		boolean finished = true;
		for (DueTaskDispatcher<?> dispatcher : all) {
			finished &= dispatcher.awaitIdle(deadline, shutdownGrace);
		}
		all.forEach(DueTaskDispatcher::stopExtending);
		return finished;
	}

	@Override
	public void close() {
		stopAll();
		workers.close();
	}

}
