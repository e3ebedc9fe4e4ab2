package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

import dev.warden.redis.RedisEngine;
import dev.warden.task.redis.ClaimCall.ClaimedTask;
import dev.warden.task.redis.ClaimedAhead.Waiting;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two calls a consumer makes for tasks it claimed ahead of their due time: confirming that a
 * claim still stands when the task is due, and handing tasks back to the queue when the consumer
 * stops. Neither waits: each reports how it ended to the consumer's callbacks.
 */
final class AheadCalls {

	private static final Logger logger = LoggerFactory.getLogger(AheadCalls.class);

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	AheadCalls(String queue, QueueKeys keys, RedisEngine engine) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
	}

	/**
	 * Gives tasks claimed ahead back to the queue: pending again at their due time, so another
	 * instance runs them then.
	 * @param tasks the tasks, already taken out of the waiting ones
	 * @param ended told how many deliveries ended, once Redis has them back (or the call failed: they
	 * then stay in flight until their deadline)
	 */
	void handBack(Map<String, Waiting> tasks, IntConsumer ended) {
		if (tasks.isEmpty()) {
			return;
		}
		List<String> pairs = new ArrayList<>(2 * tasks.size());
		tasks.forEach((id, waiting) -> {
			waiting.cancelStart();
			pairs.add(id);
			pairs.add(waiting.token);
		});
		handBack(engine, keys, queue, false, pairs).whenComplete((handedBack, failure) -> {
			if (failure != null) {
				logger.warn("Could not hand back {} task(s) of queue '{}' claimed ahead of their due time; they are "
						+ "delivered again after their visibility timeout", tasks.size(), queue, failure);
			}
			else {
				logger.info("Handed back {} task(s) of queue '{}' claimed ahead of their due time, for another "
						+ "instance to run", handedBack, queue);
			}
			ended.accept(tasks.size());
		});
	}

	/**
	 * Sends {@code task-hand-back.lua} for tasks whose claims stand and whose handlers never started:
	 * pending again, the delivery their claim counted not counted.
	 * @param atOnceToo whether tasks claimed to run at once go back too (due now), not only those
	 * claimed ahead (at their due time)
	 * @param pairs task id, claim token, …
	 * @return how many went back; failed when the call did (the claims then lapse)
	 */
	static CompletableFuture<Long> handBack(RedisEngine engine, QueueKeys keys, String queue, boolean atOnceToo,
			List<String> pairs) {
		List<String> args = new ArrayList<>(2 + pairs.size());
		args.add(keys.channel);
		args.add(atOnceToo ? "1" : "0");
		args.addAll(pairs);
		try {
			return engine.withTimeout(engine.eval(TaskScripts.HAND_BACK, ScriptOutputType.INTEGER,
					keys.dueInflightAndMeta, args.toArray(String[]::new)), "hand-back of tasks of queue '" + queue + "'");
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Confirms with Redis that the claim of a task claimed ahead, now due, still stands: a cancel,
	 * reschedule or replace that reached Redis first has taken it away, and its handler never runs;
	 * from the confirmation on, the task runs whatever comes. A confirmation that fails leaves the
	 * task in flight, to be delivered again after its deadline.
	 * @param task the task
	 * @param start runs the task, once its claim is confirmed
	 * @param ended ends its delivery, when it is not confirmed
	 */
	void confirm(ClaimedTask task, Runnable start, Runnable ended) {
		CompletableFuture<Long> confirmed;
		try {
			confirmed = engine.withTimeout(engine.eval(TaskScripts.START, ScriptOutputType.INTEGER, keys.metaOnly,
					task.id(), task.token()), "start of task '" + task.id() + "'");
		}
		catch (RuntimeException ex) {
			confirmed = CompletableFuture.failedFuture(ex);
		}
		confirmed.whenComplete((reply, failure) -> {
			if (failure == null && reply != null && reply == 1L) {
				start.run();
				return;
			}
			if (failure != null) {
				logger.warn("Could not confirm the start of task '{}' of queue '{}'; it is delivered again after its "
						+ "visibility timeout", task.id(), queue, failure);
			}
			else {
				logger.debug("Task '{}' of queue '{}', claimed ahead, was taken away before it started", task.id(),
						queue);
			}
			ended.run();
		});
	}

}
