package dev.warden.task.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.RedisEngine;
import dev.warden.task.TaskClaim;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of one consumer's running handlers alive, as the lock watchdog keeps leases: every
 * third of the visibility timeout, one {@code task-extend.lua} call moves the visibility deadline of
 * every delivery still running to a full timeout from now. A handler that runs longer than the
 * timeout is thus not delivered again meanwhile; when the process dies, nothing extends the
 * deadlines any more and they lapse, so another consumer gets the task as before. A tick with no
 * handler running sends nothing.
 */
final class ClaimExtension implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ClaimExtension.class);

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final String visibilityArg;

	private final long periodMillis;

	// Running deliveries by id: written by every handler thread, read at each tick.
	private final Map<String, Running> running = new ConcurrentHashMap<>();

	/** A running delivery's claim token, and its claim, which is lost when Redis no longer has the token. */
	private record Running(String token, TaskClaim claim) {
	}

	// Guarded by this.
	private @Nullable ScheduledFuture<?> timer;

	private boolean closed;

	ClaimExtension(String queue, QueueKeys keys, RedisEngine engine, Duration visibilityTimeout) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.visibilityArg = Long.toString(visibilityTimeout.toMillis());
		this.periodMillis = Math.max(1, visibilityTimeout.toMillis() / 3);
	}

	/** Starts ticking, once the consumer runs; each tick extends the deliveries running then. */
	synchronized void start() {
		if (timer == null && !closed) {
			timer = engine.scheduler().scheduleAtFixedRate(this::extend, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
		}
	}

	/** A handler starts on a claimed task. */
	void started(String id, String token, TaskClaim claim) {
		running.put(id, new Running(token, claim));
	}

	/** A handler is done with its task (its outcome is recorded next). */
	void finished(String id) {
		running.remove(id);
	}

	private void extend() {
		List<String> args = new ArrayList<>();
		args.add(visibilityArg);
		Map<String, Running> sent = new HashMap<>(running);
		sent.forEach((id, delivery) -> {
			args.add(id);
			args.add(delivery.token());
		});
		if (args.size() == 1) {
			return;
		}
		try {
			engine.withTimeout(engine.<List<Object>>eval(TaskScripts.EXTEND, ScriptOutputType.MULTI,
					keys.inflightAndMeta, args.toArray(String[]::new)), "claim extension of queue '" + queue + "'")
				.whenComplete((lost, failure) -> {
					if (failure != null) {
						logger.warn("Could not extend the claims of {} running task(s) of queue '{}'; tried again in {} ms",
								(args.size() - 1) / 2, queue, periodMillis, failure);
						return;
					}
					for (Object id : lost) {
						lost(sent.get((String) id));
					}
				});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend the claims of running tasks of queue '{}'", queue, ex);
		}
	}

	private void lost(@Nullable Running delivery) {
		if (delivery == null || !running.remove(delivery.claim().id(), delivery)) {
			return;
		}
		logger.warn("The claim of task '{}' of queue '{}' was lost while its handler ran (delivered again after its "
				+ "visibility deadline lapsed, or purged): its outcome will not be recorded", delivery.claim().id(), queue);
		delivery.claim().lose();
	}

	@Override
	public synchronized void close() {
		closed = true;
		if (timer != null) {
			timer.cancel(false);
			timer = null;
		}
	}

}
