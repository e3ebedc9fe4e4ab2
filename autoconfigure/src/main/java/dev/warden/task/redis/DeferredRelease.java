package dev.warden.task.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a consumer without task limits does for tasks that consumers with limits deferred: when it
 * starts and then every sweep interval, it makes them due again ({@code task-unpark.lua}), so that
 * removing a queue's limits never leaves tasks waiting for a wake-up that no instance gives.
 */
final class DeferredRelease {

	private static final Logger logger = LoggerFactory.getLogger(DeferredRelease.class);

	/** How many deferred tasks one call makes due at most; a full call is followed by another at once. */
	static final int BATCH = 500;

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final String[] scriptKeys;

	private DeferredRelease(String queue, QueueKeys keys, RedisEngine engine) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.scriptKeys = new String[] { keys.due, keys.parked, keys.wakes, keys.slots, keys.inflight };
	}

	/**
	 * Starts releasing a queue's deferred tasks, now and every {@code interval}.
	 * @return stops it
	 */
	static Runnable start(String queue, QueueKeys keys, RedisEngine engine, Duration interval) {
		DeferredRelease release = new DeferredRelease(queue, keys, engine);
		ScheduledFuture<?> job = engine.scheduler().scheduleWithFixedDelay(release::release, 0, interval.toNanos(),
				TimeUnit.NANOSECONDS);
		return () -> job.cancel(false);
	}

	private void release() {
		try {
			engine.eval(TaskScripts.UNPARK, ScriptOutputType.INTEGER, scriptKeys, Integer.toString(BATCH), keys.channel)
				.whenComplete((released, failure) -> {
					if (failure != null) {
						logger.debug("Could not look for deferred tasks of queue '{}'", queue, failure);
					}
					else if (released != null && (Long) released > 0) {
						logger.info("Made {} task(s) of queue '{}' due again that consumers with task limits had "
								+ "deferred: this instance consumes the queue without limits", released, queue);
						if ((Long) released >= BATCH) {
							engine.scheduler().execute(this::release);
						}
					}
				});
		}
		catch (RuntimeException ex) {
			logger.debug("Could not look for deferred tasks of queue '{}'", queue, ex);
		}
	}

}
