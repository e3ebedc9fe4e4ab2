package dev.warden.task.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import dev.warden.redis.RedisEngine;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.TaskLimits;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * One consumer's call of {@code task-claim.lua}: its arguments, built once where they are fixed
 * (a busy consumer claims every millisecond), and its reply, read into a {@link Reply}. The same
 * call acknowledges finished deliveries, with the claim or alone (a claim of nothing).
 */
final class ClaimCall {

	private final RedisEngine engine;

	private final QueueKeys keys;

	private final String visibilityTimeoutArg;

	private final String consumerId;

	private final String maxAttemptsArg;

	private final String claimAheadArg;

	private final String[] claimKeys;

	/** The stored format of tasks to keep each claim in: the fleet may change it between calls. */
	private final IntSupplier format;

	// With task limits: how many deferred tasks of a key become due when its wake-up time comes; else null.
	private final @Nullable String promoteOnWakeArg;

	// With task limits: ms after a wake-up at which a key with deferred tasks left wakes again; else null.
	private final @Nullable String recheckArg;

	ClaimCall(RedisEngine engine, QueueKeys keys, ConsumerOptions options, String consumerId, Duration claimAhead,
			IntSupplier format) {
		this.engine = engine;
		this.format = format;
		this.keys = keys;
		this.visibilityTimeoutArg = Long.toString(options.visibilityTimeout().toMillis());
		this.consumerId = consumerId;
		this.maxAttemptsArg = Integer.toString(options.maxAttempts());
		this.claimAheadArg = Long.toString(claimAhead.toMillis());
		TaskLimits limits = options.limits();
		this.claimKeys = limits.limited() ? keys.allAndDeadLimited : keys.allAndDead;
		this.promoteOnWakeArg = limits.limited() ? Long.toString(promoteOnWake(limits)) : null;
		this.recheckArg = limits.limited() ? Long.toString(recheckMillis(limits, options.visibilityTimeout())) : null;
	}

	/**
	 * How many deferred tasks of a key to make due when it wakes: as many as may run at once, or
	 * the rate's burst (at most 32; those the limits still refuse are deferred again).
	 */
	private static long promoteOnWake(TaskLimits limits) {
		RateLimit rate = limits.rate();
		long n = (limits.concurrency() > 0) ? limits.concurrency() : (rate != null) ? rate.burst() : 1;
		return Math.max(1, Math.min(32, n));
	}

	/**
	 * How long after a wake-up a key that still has deferred tasks wakes again, in ms: the tasks the
	 * wake-up made due set the key's next wake-up when a claim takes them, but one cancelled,
	 * rescheduled or replaced before that never does. The rate's interval, when the next start is
	 * allowed; with a concurrency limit, at least the visibility timeout, as far ahead as the
	 * deadlines of the key's running tasks lie (a wake-up sooner would only defer the same tasks
	 * again while they run).
	 */
	private static long recheckMillis(TaskLimits limits, Duration visibilityTimeout) {
		RateLimit rate = limits.rate();
		long interval = (rate != null) ? (long) Math.ceil(rate.intervalMicros() / 1000) : 0;
		long recheck = (limits.concurrency() > 0) ? Math.max(interval, visibilityTimeout.toMillis()) : interval;
		return Math.max(1, recheck);
	}

	/**
	 * Claims up to {@code limit} due tasks (none with 0), completing the {@code finished} deliveries
	 * first.
	 * @param limit how many tasks to claim at most
	 * @param finished the finished deliveries: id, claim token pairs
	 * @return the reply
	 */
	CompletableFuture<List<Object>> send(int limit, List<String> finished) {
		String[] args = new String[7 + finished.size() + ((promoteOnWakeArg != null) ? 3 : 0)];
		args[0] = Integer.toString(limit);
		args[1] = visibilityTimeoutArg;
		args[2] = consumerId;
		args[3] = maxAttemptsArg;
		args[4] = claimAheadArg;
		args[5] = (format.getAsInt() >= 2) ? "2" : "1";
		args[6] = Integer.toString(finished.size() / 2);
		for (int i = 0; i < finished.size(); i++) {
			args[7 + i] = finished.get(i);
		}
		if (promoteOnWakeArg != null) {
			args[7 + finished.size()] = promoteOnWakeArg;
			args[8 + finished.size()] = keys.channel;
			args[9 + finished.size()] = recheckArg;
		}
		try {
			return engine.eval(TaskScripts.CLAIM, ScriptOutputType.MULTI, claimKeys, args);
		}
		catch (RuntimeException ex) {
			// Lettuce refuses commands at once on a closed connection.
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** The completion outcomes at the head of a reply, one per finished delivery (1: completed). */
	static @Nullable List<Object> outcomes(@Nullable List<Object> reply, List<String> finished) {
		return (reply != null) ? reply.subList(3, Math.min(reply.size(), 3 + finished.size() / 2)) : null;
	}

	/**
	 * Reads a claim's reply.
	 * @param reply the script's reply
	 * @param finished the finished deliveries the call completed
	 * @return the tasks claimed and when to claim next
	 */
	static Reply read(List<Object> reply, List<String> finished) {
		long receivedNanos = System.nanoTime();
		long nowMicros = (Long) reply.get(0);
		List<ClaimedTask> tasks = new ArrayList<>();
		for (int i = 3 + finished.size() / 2; i + 6 < reply.size(); i += 7) {
			long startIn = (Long) reply.get(i + 4);
			tasks.add(new ClaimedTask((String) reply.get(i), (String) reply.get(i + 1), ((Long) reply.get(i + 2)).intValue(),
					(String) reply.get(i + 3), Math.max(0, startIn), Math.max(0, -startIn), receivedNanos,
					(String) reply.get(i + 5), Math.floorDiv(nowMicros + startIn, 1000), (Long) reply.get(i + 6)));
		}
		return new Reply((Long) reply.get(1), tasks);
	}

	/**
	 * What a claim gave.
	 *
	 * @param wakeInMicros how long until the next unclaimed task is due or the next deadline
	 * passes (-1: nothing pending; 0: more is due than this claim could take)
	 * @param tasks the tasks claimed
	 */
	record Reply(long wakeInMicros, List<ClaimedTask> tasks) {
	}

	/**
	 * A task claimed for this consumer.
	 *
	 * @param id the task's id
	 * @param payload its stored payload
	 * @param attempt which delivery this is, from 1
	 * @param token the claim's token, which its acknowledgement or failure must match
	 * @param startInMicros how long until it is due (0: at once), when it was claimed ahead
	 * @param lateMicros how long past its due time it was claimed, by Redis's clock
	 * @param claimedNanos when the claim's reply was read, by {@link System#nanoTime()}
	 * @param traceContext the trace context stored with the task, encoded ({@link TaskTracing}); '' for none
	 * @param dueMillis when it was due, by Redis's clock (epoch ms; for a delivery again after its
	 * claim lapsed, when that claim lapsed)
	 * @param needsFormat the stored format of tasks its reader must read (1 for every task this version
	 * writes): a task of a later format is left for an instance that reads it
	 */
	record ClaimedTask(String id, String payload, int attempt, String token, long startInMicros, long lateMicros,
			long claimedNanos, String traceContext, long dueMillis, long needsFormat) {

		/** How long past its due time the task starts now, by Redis's clock and the time since its claim. */
		long latenessNanos() {
			long sinceDue = System.nanoTime() - claimedNanos - TimeUnit.MICROSECONDS.toNanos(startInMicros);
			return TimeUnit.MICROSECONDS.toNanos(lateMicros) + Math.max(0, sinceDue);
		}

	}

}
