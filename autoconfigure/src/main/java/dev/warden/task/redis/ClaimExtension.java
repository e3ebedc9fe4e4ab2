package dev.warden.task.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.RedisEngine;
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

	// Running deliveries, id to claim token: written by every handler thread, read at each tick.
	private final Map<String, String> running = new ConcurrentHashMap<>();

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
	void started(String id, String token) {
		running.put(id, token);
	}

	/** A handler is done with its task (its outcome is recorded next). */
	void finished(String id) {
		running.remove(id);
	}

	private void extend() {
		List<String> args = new ArrayList<>();
		args.add(visibilityArg);
		running.forEach((id, token) -> {
			args.add(id);
			args.add(token);
		});
		if (args.size() == 1) {
			return;
		}
		try {
			engine.withTimeout(engine.eval(TaskScripts.EXTEND, ScriptOutputType.INTEGER, keys.inflightAndMeta,
					args.toArray(String[]::new)), "claim extension of queue '" + queue + "'")
				.whenComplete((extended, failure) -> {
					if (failure != null) {
						logger.warn("Could not extend the claims of {} running task(s) of queue '{}'; tried again in {} ms",
								(args.size() - 1) / 2, queue, periodMillis, failure);
					}
				});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend the claims of running tasks of queue '{}'", queue, ex);
		}
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
