package dev.warden.task.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import dev.warden.ReplicaSyncException;
import dev.warden.lock.redis.ReplicaSync;
import dev.warden.redis.RedisEngine;
import dev.warden.redis.ReplicationBarrier;
import io.lettuce.core.ScriptOutputType;

/**
 * The schedules of one queue on one client. A schedule is sent at once when no call of this queue
 * is under way; the schedules made while one is under way are sent together, in one call, when it
 * is answered. One caller alone waits one round trip; many callers share the calls.
 */
final class ScheduleBatcher {

	/** The most tasks one call schedules. */
	private static final int MAX_BATCH = 100;

	private final RedisEngine engine;

	private final QueueKeys keys;

	private final ReplicaSync replicaSync;

	// Guarded by this.
	private final ArrayDeque<Request> pending = new ArrayDeque<>();

	private boolean sending;

	ScheduleBatcher(RedisEngine engine, QueueKeys keys, ReplicaSync replicaSync) {
		this.engine = engine;
		this.keys = keys;
		this.replicaSync = replicaSync;
	}

	/**
	 * Schedules one task.
	 * @param traceContext the scheduling code's trace context, encoded ({@link TaskTracing}), '' for none
	 * @return its {status, due, now}, as the schedule script answers for each task
	 */
	CompletableFuture<List<Long>> schedule(String taskId, String payload, String mode, long time, boolean replace,
			String traceContext) {
		Request request = new Request(taskId, payload, mode, time, replace, traceContext, new CompletableFuture<>());
		List<Request> batch;
		synchronized (this) {
			pending.add(request);
			if (sending) {
				return request.reply;
			}
			sending = true;
			batch = take();
		}
		send(batch);
		return request.reply;
	}

	// Called holding this monitor. Callers that gave up (timed out) before their call was sent are left out.
	private List<Request> take() {
		List<Request> batch = new ArrayList<>();
		while (!pending.isEmpty() && batch.size() < MAX_BATCH) {
			Request request = pending.poll();
			if (!request.reply.isDone()) {
				batch.add(request);
			}
		}
		return batch;
	}

	/** Sends the schedules made meanwhile, if any; else no call is under way any more. */
	private void sendNext() {
		List<Request> batch;
		synchronized (this) {
			batch = take();
			if (batch.isEmpty()) {
				sending = false;
				return;
			}
		}
		send(batch);
	}

	/** Sends a batch of at least one schedule, then the next one. */
	private void send(List<Request> batch) {
		String[] args = new String[1 + 6 * batch.size()];
		args[0] = keys.channel;
		for (int i = 0; i < batch.size(); i++) {
			Request request = batch.get(i);
			args[1 + 6 * i] = request.taskId;
			args[2 + 6 * i] = request.payload;
			args[3 + 6 * i] = request.mode;
			args[4 + 6 * i] = Long.toString(request.time);
			args[5 + 6 * i] = request.replace ? "1" : "0";
			args[6 + 6 * i] = request.traceContext;
		}
		String key = keys.all[0];
		int required = replicaSync.required(key);
		Function<RedisEngine, CompletableFuture<List<Long>>> script = target -> {
			try {
				return target.eval(TaskScripts.SCHEDULE, ScriptOutputType.MULTI, keys.all, args);
			}
			catch (RuntimeException ex) {
				// Lettuce refuses commands at once on a closed connection.
				return CompletableFuture.failedFuture(ex);
			}
		};
		// With replicas to wait for, the script goes to its master's own connection (on a Redis
		// Cluster), right before the WAIT shared by the writes in flight on that connection.
		CompletableFuture<List<Long>> reply = (required == 0) ? script.apply(engine)
				: replicated(engine.writeReplicated(key, script, required, replicaSync.timeout().toMillis()), batch,
						key, required);
		List<Request> sent = batch;
		CompletableFuture<List<Long>> call = reply;
		for (Request request : sent) {
			// When every caller of a call has given up, a call still buffered for a reconnect is not sent.
			request.reply.whenComplete((value, failure) -> {
				if (failure != null && sent.stream().allMatch(r -> r.reply.isCompletedExceptionally())) {
					call.cancel(false);
				}
			});
		}
		call.whenComplete((values, failure) -> {
			for (int i = 0; i < sent.size(); i++) {
				if (failure != null) {
					sent.get(i).reply.completeExceptionally(failure);
				}
				else {
					sent.get(i).reply.complete(values.subList(3 * i, 3 * i + 3));
				}
			}
			sendNext();
		});
	}

	/**
	 * The schedules' reply once enough replicas have them; failed with {@link ReplicaSyncException}
	 * when they do not within the timeout, or the master has lost its replicas.
	 */
	private CompletableFuture<List<Long>> replicated(ReplicationBarrier.ReplicatedWrite<List<Long>> write,
			List<Request> batch, String key, int required) {
		return write.reply()
			.thenCompose(values -> write.acknowledged()
				.thenCompose(acknowledged -> replicaSync.accepts(key, acknowledged, required).thenApply(accepted -> {
					if (!accepted) {
						throw new ReplicaSyncException("The schedule of task '" + batch.get(0).taskId
								+ (batch.size() > 1 ? "' and " + (batch.size() - 1) + " more" : "'") + " was "
								+ replicaSync.shortfall(key, acknowledged, required) + ": it may be lost if the master "
								+ "fails over now; scheduling again with the same id is safe");
					}
					return values;
				})));
	}

	private record Request(String taskId, String payload, String mode, long time, boolean replace,
			String traceContext, CompletableFuture<List<Long>> reply) {
	}

}
