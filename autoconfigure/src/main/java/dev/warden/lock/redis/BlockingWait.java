package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.warden.RedisUnavailableException;
import dev.warden.redis.ChannelSubscriptions.Membership;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;

/**
 * The blocking wait every synchronizer shares: try; if that fails, join the channel its releases
 * are announced on, try again once the subscription is confirmed (so a release published while
 * subscribing is not missed), then sleep until a message or a time bound, and try again, until
 * the attempt succeeds or the wait is over.
 */
final class BlockingWait {

	/** Waits forever. */
	static final long FOREVER = Long.MAX_VALUE;

	private BlockingWait() {
	}

	/** One attempt. */
	@FunctionalInterface
	interface Attempt {

		/**
		 * @return {@code null} when it succeeded; otherwise the longest sleep in milliseconds before
		 * the next attempt (a lease that will run out), or a negative value to sleep until a message
		 */
		@Nullable Long tryOnce();

	}

	/**
	 * @param engine the client's engine
	 * @param channel where releases are announced
	 * @param waiters creates the channel's waiters
	 * @param waitNanos how long to wait; 0 tries once; {@link #FOREVER}
	 * @param attempt the attempt
	 * @param what the synchronizer, for messages
	 * @return whether an attempt succeeded within the wait
	 * @throws InterruptedException when interrupted (also before the first attempt)
	 */
	static boolean await(RedisEngine engine, String channel, Supplier<LockWaiters> waiters, long waitNanos,
			Attempt attempt, String what) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before acquiring " + what);
		}
		long start = System.nanoTime();
		Long bound = attempt.tryOnce();
		if (bound == null) {
			return true;
		}
		if (waitNanos <= 0) {
			return false;
		}
		try (Membership<LockWaiters> waiting = engine.subscriptions().join(channel, waiters)) {
			awaitSubscription(engine, channel, waiting, start, waitNanos);
			while (true) {
				bound = attempt.tryOnce();
				if (bound == null) {
					return true;
				}
				if (Thread.interrupted()) {
					throw new InterruptedException("Interrupted while waiting for " + what);
				}
				long remaining = remaining(start, waitNanos);
				if (remaining <= 0) {
					return false;
				}
				long sleep = (bound >= 0) ? Math.min(TimeUnit.MILLISECONDS.toNanos(bound) + 1, remaining) : remaining;
				sleepUntilMessage(waiting.listener(), sleep);
			}
		}
	}

	static long remaining(long start, long waitNanos) {
		return (waitNanos == FOREVER) ? FOREVER : waitNanos - (System.nanoTime() - start);
	}

	private static void awaitSubscription(RedisEngine engine, String channel, Membership<LockWaiters> waiting,
			long start, long waitNanos) throws InterruptedException {
		long commandTimeout = engine.commandTimeout().toNanos();
		long remaining = remaining(start, waitNanos);
		boolean boundedByWait = remaining < commandTimeout;
		try {
			waiting.subscribed().get(Math.max(0, boundedByWait ? remaining : commandTimeout), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw RedisEngine.translate(ex.getCause(), "subscription to " + channel);
		}
		catch (TimeoutException ex) {
			// The wait ending while subscribing is no failure: the loop makes its last attempt.
			if (!boundedByWait) {
				throw new RedisUnavailableException("Redis did not confirm the subscription to " + channel + " within "
						+ engine.commandTimeout().toMillis() + " ms", ex);
			}
		}
	}

	private static void sleepUntilMessage(LockWaiters waiters, long nanos) throws InterruptedException {
		CompletableFuture<Void> wakeUp = waiters.nextRelease();
		try {
			wakeUp.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// Woken by the time bound instead: retry. If a message claimed this sleeper meanwhile,
			// the retry that follows is the one it asked for.
			waiters.withdraw(wakeUp);
		}
		catch (InterruptedException ex) {
			if (waiters.withdraw(wakeUp)) {
				// This waiter was chosen by a message it will not act on: pass it on.
				waiters.wakeOne();
			}
			throw ex;
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

}
