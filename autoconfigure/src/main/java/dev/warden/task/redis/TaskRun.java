package dev.warden.task.redis;

import java.io.PrintWriter;
import java.io.StringWriter;

import dev.warden.redis.RedisEngine;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.Delivery;
import dev.warden.task.PayloadCodec;
import dev.warden.task.TaskHandler;
import dev.warden.task.UnreadablePayloadException;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the handler of one queue's claimed tasks, on a handler thread: reads the payload, calls the
 * handler and, when either fails, records the failure in Redis, where the task is retried after a
 * backoff or becomes a dead letter. A task whose payload cannot be read goes straight to the dead
 * letters, with the reason. Success is the caller's to acknowledge.
 *
 * @param <T> the payload type
 */
final class TaskRun<T> {

	private static final Logger logger = LoggerFactory.getLogger(TaskRun.class);

	/** How much of a failure's stack trace a dead letter keeps: enough to diagnose. */
	private static final int MAX_ERROR_LENGTH = 4000;

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final PayloadCodec<T> codec;

	private final TaskHandler<T> handler;

	private final ConsumerOptions options;

	TaskRun(String queue, QueueKeys keys, RedisEngine engine, PayloadCodec<T> codec, TaskHandler<T> handler,
			ConsumerOptions options) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.codec = codec;
		this.handler = handler;
		this.options = options;
	}

	/**
	 * Runs the task's handler.
	 * @param task the claimed task
	 * @return whether the handler succeeded: the task is then the caller's to acknowledge; a failure
	 * is recorded already (or, when Redis could not be reached for it, the task stays in flight and
	 * is delivered again after its visibility timeout)
	 */
	boolean run(ClaimCall.ClaimedTask task) {
		String id = task.id();
		try {
			T value;
			try {
				value = codec.decode(task.payload());
			}
			catch (UnreadablePayloadException ex) {
				fail(task, -1, "Unreadable payload: " + ex.getMessage());
				return false;
			}
			try {
				handler.handle(new Delivery<>(queue, id, value, task.attempt()));
			}
			catch (UnreadablePayloadException ex) {
				fail(task, -1, "Unreadable payload: " + ex.getMessage());
				return false;
			}
			catch (Exception ex) {
				logger.debug("Task '{}' of queue '{}' failed on attempt {}", id, queue, task.attempt(), ex);
				fail(task, options.backoffAfter(task.attempt()).toMillis(), describe(ex));
				return false;
			}
			return true;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record the outcome of task '{}' of queue '{}'; it will be delivered again after "
					+ "its visibility timeout", id, queue, ex);
			return false;
		}
	}

	/** Records a failed delivery: another attempt after {@code backoffMillis}, or a dead letter (-1: at once). */
	private void fail(ClaimCall.ClaimedTask task, long backoffMillis, String error) {
		Long outcome = engine.await(engine.eval(TaskScripts.FAIL, ScriptOutputType.INTEGER, keys.allAndDead,
				task.id(), task.token(), Long.toString(backoffMillis), error, Integer.toString(options.maxAttempts()),
				keys.channel), "failure of task '" + task.id() + "'");
		if (outcome != null && outcome == 2L) {
			logger.warn("Task '{}' of queue '{}' moved to the dead letters: {}", task.id(), queue, error);
		}
	}

	private static String describe(Exception ex) {
		StringWriter trace = new StringWriter();
		ex.printStackTrace(new PrintWriter(trace));
		String text = trace.toString();
		return (text.length() > MAX_ERROR_LENGTH) ? text.substring(0, MAX_ERROR_LENGTH) : text;
	}

}
