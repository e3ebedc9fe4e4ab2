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

		/**
		 * The lock was handed to the waiter by a release of this client (only waiters that offer
		 * themselves as a {@link LockWaiters.Successor} get this).
		 * @param token the fencing token the hand-over gave
		 */
		default void handedOver(long token) {
		}

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
		return await(engine, channel, waiters, waitNanos, attempt, what, null);
	}

	/**
	 * Like {@link #await(RedisEngine, String, Supplier, long, Attempt, String)}, for a waiter that
	 * a release by this client can hand the lock to.
	 * @param successor what the waiter takes a hand-over as, or {@code null}
	 */
	static boolean await(RedisEngine engine, String channel, Supplier<LockWaiters> waiters, long waitNanos,
			Attempt attempt, String what, LockWaiters.@Nullable Successor successor) throws InterruptedException {
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
				Long token = sleepUntilMessage(engine, waiting.listener(), successor, sleep, what);
				if (token != null) {
					attempt.handedOver(token);
					return true;
				}
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

	/** Sleeps; returns the fencing token of a hand-over, or {@code null} to retry. */
	private static @Nullable Long sleepUntilMessage(RedisEngine engine, LockWaiters waiters,
			LockWaiters.@Nullable Successor successor, long nanos, String what) throws InterruptedException {
		LockWaiters.Sleeper sleeper = waiters.sleep(successor);
		try {
			return sleeper.wakeUp.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// Woken by the time bound instead: retry. If a release claimed this sleeper meanwhile,
			// take what it gives: the lock, or the retry it asked for.
			return waiters.withdraw(sleeper) ? outcome(engine, sleeper, what) : null;
		}
		catch (InterruptedException ex) {
			if (waiters.withdraw(sleeper)) {
				Long token = outcome(engine, sleeper, what);
				if (token != null) {
					// The lock was handed over before the interrupt was seen: keep it, and the interrupt.
					Thread.currentThread().interrupt();
					return token;
				}
				// This waiter was chosen by a message it will not act on: pass it on.
				waiters.wakeOne();
			}
			throw ex;
		}
		catch (ExecutionException ex) {
			throw RedisEngine.translate(ex.getCause(), what);
		}
	}

	/** The outcome of a claim on a sleeper that stopped waiting: comes within the command timeout. */
	private static @Nullable Long outcome(RedisEngine engine, LockWaiters.Sleeper sleeper, String what) {
		return engine.await(sleeper.wakeUp, what);
	}

}
