package dev.warden.task.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many deliveries of one consumer are under way (a task claimed and not yet ended: waiting for
 * its due time, running, or being acknowledged), for its shutdown to wait on. Thread-safe.
 */
final class ActiveDeliveries {

	private static final Logger logger = LoggerFactory.getLogger(ActiveDeliveries.class);

	private int active;

	synchronized void begin() {
		active++;
	}

	synchronized void end(int count) {
		active -= count;
		notifyAll();
	}

	/**
	 * Waits until none is under way, or the deadline.
	 * @param queue the queue, for the log line
	 * @param deadlineNanos the deadline, by {@link System#nanoTime()}
	 * @param grace the grace period, for the log line
	 * @return whether none is under way
	 */
	synchronized boolean awaitNone(String queue, long deadlineNanos, Duration grace) {
		while (active > 0) {
			long remaining = deadlineNanos - System.nanoTime();
			if (remaining <= 0) {
				logger.warn("{} task(s) of queue '{}' still running after the {} grace period; they stay in "
						+ "flight and will be delivered again", active, queue, grace);
				return false;
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return true;
	}

}
