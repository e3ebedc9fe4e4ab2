package dev.warden.task.redis;

import java.util.concurrent.atomic.AtomicLong;

import dev.warden.task.TaskClaim;
import dev.warden.task.redis.ClaimCall.ClaimedTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed task on the worker slot reserved for it, its claim kept alive from its claim to
 * its handler's end, and ends its delivery: a task whose handler succeeded is acknowledged and its
 * delivery ends when the acknowledgement is answered; any other ends at once. The slot is free as
 * soon as the handler returns. A task whose claim was lost while it waited for a handler thread, or
 * given up after it waited a whole visibility timeout, is not run.
 *
 * @param <T> the payload type
 */
final class TaskDelivery<T> {

	private static final Logger logger = LoggerFactory.getLogger(TaskDelivery.class);

	private final String queue;

	private final TaskRun<T> run;

	private final ClaimExtension extension;

	private final Acknowledgements acknowledgements;

	private final ActiveDeliveries deliveries;

	private final TaskWorkers workers;

	/**
	 * This consumer's handlers that have finished so far in less than {@link #quickNanos}: how fast
	 * short handlers free their slots. A slow handler's end frees a slot, but says nothing of how soon
	 * the next will: handlers that ran slow and end together do not count as a fast rate.
	 */
	private final AtomicLong finishedQuickly = new AtomicLong();

	// How long a handler may run and still count as quick: a claim's round trip.
	private volatile long quickNanos;

	TaskDelivery(String queue, TaskRun<T> run, ClaimExtension extension, Acknowledgements acknowledgements,
			ActiveDeliveries deliveries, TaskWorkers workers) {
		this.queue = queue;
		this.run = run;
		this.extension = extension;
		this.acknowledgements = acknowledgements;
		this.deliveries = deliveries;
		this.workers = workers;
	}

	/** A claim starts this task now, after the ones it started before it ({@link TaskRun#expect}). */
	void expect(ClaimedTask task) {
		run.expect(task);
	}

	/**
	 * {@return how many of this consumer's handlers have finished so far, each in less than the
	 * {@linkplain #quickWithin round trip} measured when it ended}
	 */
	long finishedQuickly() {
		return finishedQuickly.get();
	}

	/** A handler that runs shorter than this from now on counts as quick: a claim's round trip. */
	void quickWithin(long nanos) {
		quickNanos = nanos;
	}

	/**
	 * Keeps the claim of a task claimed to run alive until its handler ends: to call before the task
	 * waits for a handler thread.
	 */
	ClaimExtension.Running claimed(ClaimedTask task, long claimedNanos) {
		return extension.claimed(task.id(), task.token(), claimedNanos);
	}

	/**
	 * Runs the task's handler, on a handler thread, unless its claim was lost meanwhile.
	 * @param task the task
	 * @param running its delivery, from {@link #claimed}
	 */
	void deliver(ClaimedTask task, ClaimExtension.Running running) {
		boolean succeeded = false;
		long began = System.nanoTime();
		TaskClaim claim = TaskClaim.enter(queue, task.id());
		try {
			boolean handled;
			try {
				if (running.start(claim)) {
					handled = run.run(task);
				}
				else {
					run.skip(task);
					handled = false;
				}
			}
			finally {
				extension.finished(running);
				claim.exit();
				if (System.nanoTime() - began < quickNanos) {
					finishedQuickly.incrementAndGet();
				}
			}
			if (handled) {
				succeeded = true;
				acknowledgements.acknowledge(task.id(), task.token());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not acknowledge task '{}' of queue '{}'; it will be delivered again after its "
					+ "visibility timeout", task.id(), queue, ex);
		}
		finally {
			if (!succeeded) {
				// A delivery that succeeded ends when its acknowledgement is answered.
				deliveries.end(1);
			}
			// The handler is done: its slot may run another task while the acknowledgement is sent.
			workers.release(1);
		}
	}

}
