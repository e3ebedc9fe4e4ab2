package dev.warden.task.redis;

import java.io.PrintWriter;
import java.io.StringWriter;

import dev.warden.redis.RedisEngine;
import dev.warden.redis.StoredFormats;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.Delivery;
import dev.warden.task.EndedDelivery;
import dev.warden.task.EndedDelivery.Outcome;
import dev.warden.task.NewerTaskFormatException;
import dev.warden.task.PayloadCodec;
import dev.warden.task.TaskHandler;
import dev.warden.task.TaskListener;
import dev.warden.task.UnreadablePayloadException;
import dev.warden.task.redis.TaskAdmission.Admitted;
import io.lettuce.core.ScriptOutputType;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the handler of one queue's claimed tasks, on a handler thread: reads the payload, calls the
 * handler and, when either fails, records the failure in Redis, where the task is retried after a
 * backoff or becomes a dead letter. A task whose payload cannot be read goes straight to the dead
 * letters, with the reason; one written by a later version than this one reads is left in the queue
 * for an instance that reads it. Success is the caller's to acknowledge.
 *
 * @param <T> the payload type
 */
final class TaskRun<T> {

	private static final Logger logger = LoggerFactory.getLogger(TaskRun.class);

	/** How much of a failure's stack trace a dead letter keeps: enough to diagnose. */
	private static final int MAX_ERROR_LENGTH = 4000;

	/** {@code task-fail.lua}'s reply: the task will be delivered again after its backoff. */
	private static final long RESCHEDULED = 1;

	/** {@code task-fail.lua}'s reply: the task is a dead letter now. */
	private static final long MOVED_TO_DEAD_LETTERS = 2;

	/**
	 * The stored format of tasks this version reads: a task whose {@code n:<id>} names a later one is
	 * left for an instance that reads it ({@code task-leave.lua}).
	 */
	static final long TASK_FORMAT = StoredFormats.TASKS;

	/** How soon a task left for an instance that reads it is due again, in ms. */
	private static final long LEFT_RECHECK_MILLIS = 5_000;

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final PayloadCodec<T> codec;

	private final TaskHandler<T> handler;

	private final ConsumerOptions options;

	private final String deadLetterRetention;

	private final TaskListener listener;

	private final TaskTracing tracing;

	// With task limits: the admission each task passes before it starts; else null.
	private final @Nullable TaskAdmission<T> admission;

	private final String[] failKeys;

	private final String newerFormatGrace;

	private final String recheck;

	/** Whether this queue's first task left for a later version was logged at WARN (the others at DEBUG). */
	private final java.util.concurrent.atomic.AtomicBoolean leftWarned = new java.util.concurrent.atomic.AtomicBoolean();

	/**
	 * @param deadLetterRetentionMillis dead letters older than this are trimmed; -1 keeps them
	 * @param newerFormatGraceMillis how long a task of a later version may be left in its queue by
	 * instances that cannot read it before it becomes a dead letter
	 * @param listener told how each delivery starts and ends
	 * @param tracing observes each delivery, in the trace of the code that scheduled the task
	 */
	TaskRun(String queue, QueueKeys keys, RedisEngine engine, PayloadCodec<T> codec, TaskHandler<T> handler,
			ConsumerOptions options, long deadLetterRetentionMillis, long newerFormatGraceMillis, TaskListener listener,
			TaskTracing tracing) {
		this.listener = listener;
		this.tracing = tracing;
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.codec = codec;
		this.handler = handler;
		this.options = options;
		this.deadLetterRetention = Long.toString(deadLetterRetentionMillis);
		boolean limited = options.limits().limited();
		this.admission = limited ? new TaskAdmission<>(queue, keys, engine, codec, options.limits(), listener) : null;
		this.failKeys = limited ? keys.allAndDeadLimited : keys.allAndDead;
		this.newerFormatGrace = Long.toString(newerFormatGraceMillis);
		this.recheck = Long.toString(Math.min(LEFT_RECHECK_MILLIS, newerFormatGraceMillis));
	}

	/**
	 * A claim starts this task now, after the ones it started before it: with task limits, their
	 * admissions reach Redis in that order.
	 */
	void expect(ClaimCall.ClaimedTask task) {
		if (admission != null) {
			admission.expect(task);
		}
	}

	/** A task a claim started that does not run (its claim was lost while it waited for a handler thread). */
	void skip(ClaimCall.ClaimedTask task) {
		if (admission != null) {
			admission.skip(task);
		}
	}

	/**
	 * Runs the task's handler.
	 * @param task the claimed task
	 * @return whether the handler succeeded: the task is then the caller's to acknowledge; a failure
	 * is recorded already (or, when Redis could not be reached for it, the task stays in flight and
	 * is delivered again after its visibility timeout); false as well when the queue's limits deferred it
	 */
	boolean run(ClaimCall.ClaimedTask task) {
		if (task.needsFormat() > TASK_FORMAT) {
			if (admission != null) {
				admission.skip(task);
			}
			leave(task, new NewerTaskFormatException("Task '" + task.id() + "' of queue '" + queue + "' needs stored "
					+ "format " + task.needsFormat() + " of Warden's tasks, and this instance (Warden "
					+ StoredFormats.CURRENT.version() + ") reads format " + TASK_FORMAT
					+ "; an instance of a later Warden runs it"));
			return false;
		}
		Admitted<T> admitted = null;
		if (admission != null) {
			admitted = admission.admit(task);
			if (admitted == null) {
				return false;
			}
		}
		listener.onStarted(queue, task.latenessNanos());
		Observation observation = tracing.startRun(queue, task);
		try (Observation.Scope scope = observation.openScope()) {
			boolean succeeded = deliver(task, admitted, observation);
			observation.lowCardinalityKeyValue("outcome", succeeded ? "completed" : "failed");
			return succeeded;
		}
		finally {
			observation.stop();
		}
	}

	private boolean deliver(ClaimCall.ClaimedTask task, @Nullable Admitted<T> admitted, Observation observation) {
		String id = task.id();
		long started = System.nanoTime();
		try {
			T value;
			try {
				if (admitted == null) {
					value = codec.decode(task.payload());
				}
				else if (admitted.failure() != null) {
					throw admitted.failure();
				}
				else {
					value = admitted.value();
				}
			}
			catch (NewerTaskFormatException ex) {
				observation.error(ex);
				leave(task, ex);
				return false;
			}
			catch (UnreadablePayloadException ex) {
				return failed(task, ex, started, observation, deadLetter(task, ex));
			}
			catch (RuntimeException ex) {
				// Readable elsewhere, perhaps: a failed attempt, delivered again.
				return failed(task, ex, started, observation, failedAttempt(task, ex));
			}
			try {
				handler.handle(new Delivery<>(queue, id, value, task.attempt()));
			}
			catch (NewerTaskFormatException ex) {
				observation.error(ex);
				leave(task, ex);
				return false;
			}
			catch (UnreadablePayloadException ex) {
				return failed(task, ex, started, observation, deadLetter(task, ex));
			}
			catch (Exception ex) {
				return failed(task, ex, started, observation, failedAttempt(task, ex));
			}
			listener.onCompleted(queue, System.nanoTime() - started);
			listener.onEnded(new EndedDelivery(queue, id, task.attempt(), task.payload(), Outcome.COMPLETED, null));
			return true;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record the outcome of task '{}' of queue '{}'; it will be delivered again after "
					+ "its visibility timeout", id, queue, ex);
			listener.onEnded(new EndedDelivery(queue, id, task.attempt(), task.payload(), Outcome.UNRECORDED, ex));
			return false;
		}
	}

	/** Tells the listener of a failed delivery, whose failure is recorded already; always false. */
	private boolean failed(ClaimCall.ClaimedTask task, Exception failure, long started, Observation observation,
			Outcome outcome) {
		observation.error(failure);
		listener.onFailed(queue, System.nanoTime() - started, outcome == Outcome.DEAD_LETTER);
		listener.onEnded(new EndedDelivery(queue, task.id(), task.attempt(), task.payload(), outcome, failure));
		return false;
	}

	/**
	 * A failed attempt: one WARN line (the stack trace at DEBUG), or, when it was the last attempt,
	 * one ERROR line with the stack trace as the task becomes a dead letter.
	 */
	private Outcome failedAttempt(ClaimCall.ClaimedTask task, Exception failure) {
		long backoffMillis = options.backoffAfter(task.attempt()).toMillis();
		long outcome = fail(task, backoffMillis, describe(failure));
		if (outcome == MOVED_TO_DEAD_LETTERS) {
			logger.error("Task '{}' of queue '{}' failed on attempt {} of {} and moved to the dead letters: {}",
					task.id(), queue, task.attempt(), options.maxAttempts(), failure.toString(), failure);
			return Outcome.DEAD_LETTER;
		}
		if (outcome == RESCHEDULED) {
			logger.warn("Task '{}' of queue '{}' failed on attempt {} of {}; next attempt in {} ms: {}", task.id(),
					queue, task.attempt(), options.maxAttempts(), backoffMillis, failure.toString());
			logger.debug("Failure of task '{}' of queue '{}' on attempt {}", task.id(), queue, task.attempt(),
					failure);
			return Outcome.RETRIED;
		}
		return Outcome.SUPERSEDED;
	}

	/**
	 * Leaves a task written by a later version for an instance that reads it: back in the queue, due
	 * again after a recheck, its attempt not spent; a dead letter with the reason once it has been left
	 * for longer than the grace. The first such task of the queue is logged at WARN, with what to
	 * deploy; the others at DEBUG.
	 */
	private void leave(ClaimCall.ClaimedTask task, NewerTaskFormatException reason) {
		long outcome;
		try {
			Long reply = engine.await(engine.eval(TaskScripts.LEAVE, ScriptOutputType.INTEGER, failKeys, task.id(),
					task.token(), recheck, newerFormatGrace, reason.getMessage(), keys.channel, deadLetterRetention),
					"leaving task '" + task.id() + "'");
			outcome = (reply != null) ? reply : 0;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not leave task '{}' of queue '{}' for a later version; it will be delivered again after "
					+ "its visibility timeout", task.id(), queue, ex);
			listener.onEnded(new EndedDelivery(queue, task.id(), task.attempt(), task.payload(), Outcome.UNRECORDED, ex));
			return;
		}
		if (outcome == MOVED_TO_DEAD_LETTERS) {
			logger.error("Task '{}' of queue '{}' moved to the dead letters: instances that cannot read it left it for "
					+ "longer than the newer-format grace ({} ms): {}. Re-drive it from an instance that reads it",
					task.id(), queue, newerFormatGrace, reason.getMessage());
			listener.onEnded(new EndedDelivery(queue, task.id(), task.attempt(), task.payload(), Outcome.DEAD_LETTER,
					reason));
			return;
		}
		if (outcome == RESCHEDULED) {
			if (leftWarned.compareAndSet(false, true)) {
				logger.warn("Queue '{}' holds tasks written by a later version than this instance reads, left for an "
						+ "instance that reads them (rechecked every {} ms, dead letters after {} ms unread); deploy the "
						+ "later version, or roll the writers back. First: {}", queue, recheck, newerFormatGrace,
						reason.getMessage());
			}
			else {
				logger.debug("Left task '{}' of queue '{}' for a later version: {}", task.id(), queue, reason.getMessage());
			}
		}
		listener.onEnded(new EndedDelivery(queue, task.id(), task.attempt(), task.payload(),
				(outcome == RESCHEDULED) ? Outcome.LEFT : Outcome.SUPERSEDED, reason));
	}

	/** A payload that cannot be read goes to the dead letters at once: no attempt can read it. */
	private Outcome deadLetter(ClaimCall.ClaimedTask task, UnreadablePayloadException failure) {
		if (fail(task, -1, "Unreadable payload: " + failure.getMessage()) == MOVED_TO_DEAD_LETTERS) {
			logger.error("Task '{}' of queue '{}' moved to the dead letters: its payload cannot be read: {}",
					task.id(), queue, failure.getMessage(), failure);
			return Outcome.DEAD_LETTER;
		}
		return Outcome.SUPERSEDED;
	}

	/**
	 * Records a failed delivery: another attempt after {@code backoffMillis}, or a dead letter (-1: at
	 * once).
	 * @return {@link #RESCHEDULED}, {@link #MOVED_TO_DEAD_LETTERS}, or 0 when the delivery is no longer
	 * the current one (the task was cancelled, replaced or redelivered meanwhile)
	 */
	private long fail(ClaimCall.ClaimedTask task, long backoffMillis, String error) {
		Long outcome = engine.await(engine.eval(TaskScripts.FAIL, ScriptOutputType.INTEGER, failKeys,
				task.id(), task.token(), Long.toString(backoffMillis), error, Integer.toString(options.maxAttempts()),
				keys.channel, deadLetterRetention), "failure of task '" + task.id() + "'");
		return (outcome != null) ? outcome : 0;
	}

	private static String describe(Exception ex) {
		StringWriter trace = new StringWriter();
		ex.printStackTrace(new PrintWriter(trace));
		String text = trace.toString();
		return (text.length() > MAX_ERROR_LENGTH) ? text.substring(0, MAX_ERROR_LENGTH) : text;
	}

}
