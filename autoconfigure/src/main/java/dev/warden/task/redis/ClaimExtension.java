package dev.warden.task.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * Keeps the claims of one consumer's deliveries alive, as the lock watchdog keeps leases: every third
 * of the visibility timeout, one {@code task-extend.lua} call moves the visibility deadline of every
 * delivery still running, or waiting for a handler thread, to a full timeout from now. A handler that
 * runs longer than the timeout is thus not delivered again meanwhile; when the process dies, nothing
 * extends the deadlines any more and they lapse, so another consumer gets the task as before. A tick
 * with no delivery under way sends nothing. A task that has waited a whole visibility timeout for a
 * handler thread (behind handlers that turned slow) is given up instead, and so is every task not
 * started when the extension closes: it does not run here, and goes back to the queue, due now and
 * its delivery not counted, for any instance to run.
 * <p>
 * Deliveries are tracked one by one, not by task id: the same consumer may run two deliveries of one
 * id at once (the task was replaced while its handler ran, or its claim lapsed and came back to
 * this consumer), and the end or the loss of the older one never touches the newer one.
 */
final class ClaimExtension implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ClaimExtension.class);

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final String visibilityArg;

	private final long periodMillis;

	private final long maxWaitNanos;

	// The deliveries under way (waiting for a handler thread or running), each its own: written by
	// the consumer and every handler thread, read at each tick.
	private final Set<Running> running = ConcurrentHashMap.newKeySet();

	/**
	 * One delivery, from its claim to its handler's end: its task's id, its claim token, and once its
	 * handler starts, the handler's claim, which is lost when Redis no longer has the token. Equal
	 * only to itself: two deliveries of one id are two entries.
	 */
	static final class Running {

		private final String id;

		private final String token;

		private final long claimedNanos;

		// Guarded by this.
		private @Nullable TaskClaim claim;

		// Guarded by this: lost before its handler started.
		private boolean lost;

		private Running(String id, String token, long claimedNanos) {
			this.id = id;
			this.token = token;
			this.claimedNanos = claimedNanos;
		}

		/**
		 * Gives the delivery up when it still waits for a handler thread more than {@code nanos} after
		 * its claim: its handler will not start.
		 */
		private boolean giveUpIfWaitedLongerThan(long nanos, long now) {
			return now - claimedNanos > nanos && giveUpIfWaiting();
		}

		/** Gives the delivery up when it still waits for a handler thread: its handler will not start. */
		private synchronized boolean giveUpIfWaiting() {
			if (claim != null) {
				return false;
			}
			lost = true;
			return true;
		}

		/**
		 * Its handler starts with this claim.
		 * @return false when the claim was lost already: the handler must not run
		 */
		synchronized boolean start(TaskClaim claim) {
			this.claim = claim;
			return !lost;
		}

		private void lose() {
			TaskClaim started;
			synchronized (this) {
				lost = true;
				started = claim;
			}
			if (started != null) {
				started.lose();
			}
		}

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
		this.maxWaitNanos = visibilityTimeout.toNanos();
	}

	/** Starts ticking, once the consumer runs; each tick extends the deliveries running then. */
	synchronized void start() {
		if (timer == null && !closed) {
			timer = engine.scheduler().scheduleAtFixedRate(this::extend, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * A task is claimed to run now: its claim is kept alive from now on, while it waits for a handler
	 * thread (up to a visibility timeout) and while its handler runs.
	 * @param id the task's id
	 * @param token its claim token
	 * @param claimedNanos when its claim was sent, or confirmed for a task claimed ahead
	 * ({@link System#nanoTime()})
	 * @return the delivery, to start ({@link Running#start}) and to tell {@link #finished} of
	 */
	Running claimed(String id, String token, long claimedNanos) {
		Running delivery = new Running(id, token, claimedNanos);
		synchronized (this) {
			if (closed) {
				// Nothing keeps its claim alive any more: it must not start.
				delivery.giveUpIfWaiting();
			}
			else {
				running.add(delivery);
			}
		}
		return delivery;
	}

	/**
	 * A handler is done with this delivery, or it ends without one (its outcome is recorded next); any
	 * other of its id runs on.
	 */
	void finished(Running delivery) {
		running.remove(delivery);
	}

	private void extend() {
		long now = System.nanoTime();
		List<Running> givenUp = new ArrayList<>();
		for (Running delivery : running) {
			if (delivery.giveUpIfWaitedLongerThan(maxWaitNanos, now) && running.remove(delivery)) {
				logger.warn("Task '{}' of queue '{}' waited a whole visibility timeout for a handler thread: it does not "
						+ "run here, and goes back to the queue", delivery.id, queue);
				givenUp.add(delivery);
			}
		}
		handBack(givenUp);
		List<Running> sent = List.copyOf(running);
		if (sent.isEmpty()) {
			return;
		}
		List<String> args = new ArrayList<>(1 + 2 * sent.size());
		args.add(visibilityArg);
		for (Running delivery : sent) {
			args.add(delivery.id);
			args.add(delivery.token);
		}
		try {
			engine.withTimeout(engine.<List<Object>>eval(TaskScripts.EXTEND, ScriptOutputType.MULTI,
					keys.inflightAndMeta, args.toArray(String[]::new)), "claim extension of queue '" + queue + "'")
				.whenComplete((lost, failure) -> {
					if (failure != null) {
						logger.warn("Could not extend the claims of {} running task(s) of queue '{}'; tried again in {} ms",
								sent.size(), queue, periodMillis, failure);
						return;
					}
					// The positions, from 1, of the deliveries whose claim no longer stands.
					for (Object position : lost) {
						lost(sent.get(((Long) position).intValue() - 1));
					}
				});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend the claims of running tasks of queue '{}'", queue, ex);
		}
	}

	private void lost(Running delivery) {
		if (!running.remove(delivery)) {
			return;
		}
		logger.warn("The claim of task '{}' of queue '{}' was lost while its handler ran or waited to (delivered again "
				+ "after its visibility deadline lapsed, replaced, or purged): its outcome will not be recorded", delivery.id,
				queue);
		delivery.lose();
	}

	/**
	 * Stops extending claims: handlers running now run on, their claims left to lapse; tasks that
	 * still wait for a handler thread are given up and do not start (their claims lapse, and they are
	 * delivered again).
	 */
	@Override
	public void close() {
		synchronized (this) {
			closed = true;
			if (timer != null) {
				timer.cancel(false);
				timer = null;
			}
		}
		List<Running> givenUp = new ArrayList<>();
		for (Running delivery : running) {
			if (delivery.giveUpIfWaiting()) {
				running.remove(delivery);
				givenUp.add(delivery);
			}
		}
		handBack(givenUp);
	}

	/**
	 * Hands back tasks given up before their handlers started: pending again now, the delivery their
	 * claim counted not counted. When the call fails, their claims lapse and they are delivered again
	 * after the visibility timeout, that delivery counted.
	 */
	private void handBack(List<Running> givenUp) {
		if (givenUp.isEmpty()) {
			return;
		}
		List<String> pairs = new ArrayList<>(2 * givenUp.size());
		for (Running delivery : givenUp) {
			pairs.add(delivery.id);
			pairs.add(delivery.token);
		}
		AheadCalls.handBack(engine, keys, queue, true, pairs).whenComplete((handedBack, failure) -> {
			if (failure != null) {
				logger.warn("Could not hand back {} task(s) of queue '{}' that did not start; they are delivered again "
						+ "after their visibility timeout", givenUp.size(), queue, failure);
			}
		});
	}

}
