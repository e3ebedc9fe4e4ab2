package dev.warden.task.redis;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.ratelimit.RateLimit;
import dev.warden.redis.RedisEngine;
import dev.warden.task.PayloadCodec;
import dev.warden.task.TaskLimits;
import dev.warden.task.TaskListener;
import dev.warden.task.redis.ClaimCall.ClaimedTask;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a claimed task of a queue with {@link TaskLimits} may start now: reads its payload and
 * key, and asks Redis ({@code task-admit.lua}), which takes a slot of the key or defers the task.
 *
 * @param <T> the payload type
 */
final class TaskAdmission<T> {

	private static final Logger logger = LoggerFactory.getLogger(TaskAdmission.class);

	/** The longest a task's admission waits for those claimed ahead of it to be sent. */
	private static final long MAX_TURN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * The tasks a claim started at once, in due order, whose admission is not sent yet: each is sent
	 * after those ahead of it, so that the earlier of two tasks of one key is admitted first although
	 * their handlers' threads run in any order. Guarded by itself.
	 */
	private final ArrayDeque<ClaimedTask> unsent = new ArrayDeque<>();

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final PayloadCodec<T> codec;

	private final TaskLimits limits;

	private final TaskListener listener;

	private final String concurrencyArg;

	private final String intervalArg;

	private final String burstArg;

	TaskAdmission(String queue, QueueKeys keys, RedisEngine engine, PayloadCodec<T> codec, TaskLimits limits,
			TaskListener listener) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.codec = codec;
		this.limits = limits;
		this.listener = listener;
		RateLimit rate = limits.rate();
		this.concurrencyArg = Integer.toString(limits.concurrency());
		this.intervalArg = (rate != null) ? Double.toString(rate.intervalMicros()) : "0";
		this.burstArg = (rate != null) ? Long.toString(rate.burst()) : "0";
	}

	/**
	 * A claim starts this task now, after those it expected before: its admission goes after theirs.
	 */
	void expect(ClaimedTask task) {
		synchronized (unsent) {
			unsent.add(task);
		}
	}

	/**
	 * Admits a task to run.
	 * @param task the claimed task
	 * @return the payload read, to run the task with (or why it could not be read or keyed, for the
	 * delivery to fail with); null when the task does not start: it was deferred, its claim no longer
	 * stands, or Redis could not be asked (the task is then delivered again after its visibility timeout)
	 */
	@Nullable Admitted<T> admit(ClaimedTask task) {
		T value;
		String key;
		CompletableFuture<List<Object>> sent;
		try {
			try {
				value = codec.decode(task.payload());
			}
			catch (RuntimeException ex) {
				// It starts, to fail as any delivery whose payload cannot be read: it takes no slot.
				return new Admitted<>(null, ex);
			}
			try {
				key = limits.keyOf(value);
			}
			catch (RuntimeException ex) {
				return new Admitted<>(value, new IllegalStateException("Could not read the limit key of task '"
						+ task.id() + "' of queue '" + queue + "': " + ex.getMessage(), ex));
			}
			awaitTurn(task);
			// Commands on the one connection run in the order they are sent.
			sent = engine.eval(TaskScripts.ADMIT, ScriptOutputType.MULTI, keys.admit, task.id(), task.token(), key,
					Long.toString(task.dueMillis()), concurrencyArg, intervalArg, burstArg, keys.channel);
		}
		finally {
			leaveTurn(task);
		}
		List<Object> reply;
		try {
			reply = engine.await(sent, "limits of task '" + task.id() + "'");
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the limits of task '{}' of queue '{}'; it will be delivered again after its "
					+ "visibility timeout", task.id(), queue, ex);
			return null;
		}
		long outcome = (Long) reply.get(0);
		if (outcome == 1) {
			return new Admitted<>(value, null);
		}
		if (outcome == 2) {
			String reason = (String) reply.get(1);
			logger.debug("Task '{}' of queue '{}' deferred: its key '{}' is at its {} limit", task.id(), queue, key,
					reason);
			listener.onDeferred(queue, reason);
		}
		return null;
	}

	/**
	 * Waits until the tasks expected ahead of this one have sent their admission, for at most
	 * {@link #MAX_TURN_WAIT_NANOS} (one whose delivery never runs, at shutdown, holds up no other
	 * for longer). A task that was not expected (claimed ahead, started at its due time) does not wait.
	 */
	private void awaitTurn(ClaimedTask task) {
		long deadline = System.nanoTime() + MAX_TURN_WAIT_NANOS;
		boolean interrupted = false;
		synchronized (unsent) {
			while (unsent.peekFirst() != task && unsent.contains(task)) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					break;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(unsent, remaining);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/** A task expected that will not ask for admission: those after it need not wait for it. */
	void skip(ClaimedTask task) {
		leaveTurn(task);
	}

	private void leaveTurn(ClaimedTask task) {
		synchronized (unsent) {
			if (unsent.remove(task)) {
				unsent.notifyAll();
			}
		}
	}

	/**
	 * A task that may start.
	 *
	 * @param <T> the payload type
	 * @param value its payload, read
	 * @param failure why its payload could not be read or its key not found: its delivery fails
	 */
	record Admitted<T>(@Nullable T value, @Nullable RuntimeException failure) {
	}

}
