package dev.warden.task.redis;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * When one consumer claims next: at the time Redis said the next task is due, sooner when a message
 * announces an earlier task, and never later than the sweep interval. A message that arrives while
 * a claim is under way is kept for when it ends, since that claim may have read the queue before the
 * task arrived.
 * <p>
 * Not thread-safe: guarded by its consumer's monitor.
 */
final class WakeTimer {

	private final ScheduledExecutorService scheduler;

	private final Runnable claim;

	private final long sweepMicros;

	private @Nullable ScheduledFuture<?> wake;

	private long wakeAtNanos = Long.MAX_VALUE;

	private long afterClaimNanos = Long.MAX_VALUE;

	/**
	 * @param scheduler runs the claims
	 * @param claim the claim to run
	 * @param sweepMicros the longest sleep, in microseconds
	 */
	WakeTimer(ScheduledExecutorService scheduler, Runnable claim, long sweepMicros) {
		this.scheduler = scheduler;
		this.claim = claim;
		this.sweepMicros = sweepMicros;
	}

	/** A task is due at {@code atNanos}: claim by then (after the claim under way, if one is). */
	void wakeBy(long atNanos, boolean claimUnderWay) {
		if (claimUnderWay) {
			afterClaimNanos = Math.min(afterClaimNanos, atNanos);
		}
		else if (atNanos < wakeAtNanos) {
			schedule(atNanos);
		}
	}

	/** A claim begins now: the timer that ran it, or would have, is done. */
	void claimBegins() {
		cancel();
		afterClaimNanos = Long.MAX_VALUE;
	}

	/**
	 * A claim ended: the next one comes when Redis said, or sooner for a task announced meanwhile.
	 * @param wakeInMicros the claim's answer: µs until the next task is due (-1: none pending)
	 */
	void claimEnded(long wakeInMicros) {
		long next = (wakeInMicros < 0) ? sweepMicros : Math.min(wakeInMicros, sweepMicros);
		long at = Math.min(System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(next), afterClaimNanos);
		afterClaimNanos = Long.MAX_VALUE;
		schedule(at);
	}

	/** Whether a claim is set to come within {@code nanos}. */
	boolean claimWithin(long nanos) {
		return wake != null && wakeAtNanos - System.nanoTime() <= nanos;
	}

	/** No claim comes from this timer until it is set again. */
	void cancel() {
		if (wake != null) {
			wake.cancel(false);
			wake = null;
		}
		wakeAtNanos = Long.MAX_VALUE;
	}

	private void schedule(long atNanos) {
		if (wake != null) {
			wake.cancel(false);
		}
		wakeAtNanos = atNanos;
		wake = scheduler.schedule(claim, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

}
