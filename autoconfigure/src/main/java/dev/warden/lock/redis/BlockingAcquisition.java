package dev.warden.lock.redis;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.warden.RedisUnavailableException;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;

/**
 * The blocking calls of every synchronizer that waits: an await on its {@link Acquisition}.
 * <p>
 * The first try runs on the caller's own thread and, when it decides the call (the common,
 * uncontended case), nothing else is built: one blocking round trip. Otherwise the acquisition goes
 * on without the thread, which waits for its outcome; an interrupt cancels it, and the call returns
 * only once nothing of it is left in flight, so that a waiter that gave up holds nothing and has
 * left its place in any queue.
 */
final class BlockingAcquisition {

	private BlockingAcquisition() {
	}

	/**
	 * Acquires, blocking the calling thread.
	 * @param engine the client's engine
	 * @param contender the waiter
	 * @param waitNanos how long to wait; 0 tries once; {@link Acquisition#FOREVER}
	 * @param <T> what a successful try gives
	 * @return what the winning try gave, or {@code null} when the wait ended first
	 * @throws InterruptedException when interrupted (also before the first try); nothing is then held
	 */
	static <T> @Nullable T await(RedisEngine engine, Contender<T> contender, long waitNanos)
			throws InterruptedException {
		return block(engine, contender, waitNanos, true);
	}

	/**
	 * Like {@link #await}, without being interrupted: an interrupt is kept for the caller to act on.
	 * @param engine the client's engine
	 * @param contender the waiter
	 * @param waitNanos how long to wait; 0 tries once; {@link Acquisition#FOREVER}
	 * @param <T> what a successful try gives
	 * @return what the winning try gave, or {@code null} when the wait ended first
	 */
	static <T> @Nullable T awaitUninterruptibly(RedisEngine engine, Contender<T> contender, long waitNanos) {
		try {
			return block(engine, contender, waitNanos, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("An uninterruptible wait was interrupted", ex);
		}
	}

	private static <T> @Nullable T block(RedisEngine engine, Contender<T> contender, long waitNanos,
			boolean interruptibly) throws InterruptedException {
		boolean interrupted = Thread.interrupted();
		if (interrupted && interruptibly) {
			throw new InterruptedException("Interrupted before the " + contender.description());
		}
		try {
			long start = System.nanoTime();
			boolean willWait = waitNanos > 0;
			if (willWait) {
				contender.waitBegins();
			}
			Contender.Try<T> first = null;
			Object listening = null;
			int lostTries = 0;
			while (first == null) {
				listening = willWait ? Acquisition.listening(engine, contender) : null;
				try {
					first = engine.await(contender.tryOnce(willWait), contender.description());
				}
				catch (RuntimeException ex) {
					long remaining = waitNanos - (System.nanoTime() - start);
					if (lostTries < Acquisition.LOST_TRIES && Acquisition.mayTryAgain(contender, ex, remaining)) {
						// Its connection closed before Redis answered: tried again on the next.
						lostTries++;
						continue;
					}
					if (willWait) {
						contender.waitEnds(false);
					}
					throw ex;
				}
			}
			if (!willWait || first.succeeded()) {
				// The common case, decided by the first try: no state to keep.
				if (willWait) {
					contender.waitEnds(true);
				}
				return first.value();
			}
			return blockUntilDone(Acquisition.afterFirstTry(engine, contender, waitNanos, start, first, listening,
					lostTries), engine, contender, interruptibly);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static <T> @Nullable T blockUntilDone(Acquisition<T> acquisition, RedisEngine engine,
			Contender<T> contender, boolean interruptibly) throws InterruptedException {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return outcome(acquisition, engine, contender);
				}
				catch (InterruptedException ex) {
					if (interruptibly && acquisition.result().cancel(false)) {
						awaitSettled(acquisition, engine, contender);
						throw new InterruptedException("Interrupted while waiting for the " + contender.description());
					}
					// Not interruptible, or the outcome came first: it stands, and so does the interrupt.
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Waits for the outcome. Every step is bounded (a try by the command timeout, a sleep by the
	 * wait left), so the bound here only guards against a step that never completes.
	 */
	private static <T> @Nullable T outcome(Acquisition<T> acquisition, RedisEngine engine, Contender<T> contender)
			throws InterruptedException {
		T value;
		try {
			long remaining = acquisition.remaining();
			if (remaining == Acquisition.FOREVER) {
				value = acquisition.result().get();
			}
			else {
				long guard = remaining + 3 * engine.commandTimeout().toNanos();
				value = acquisition.result().get(Math.max(0, guard), TimeUnit.NANOSECONDS);
			}
		}
		catch (ExecutionException ex) {
			throw RedisEngine.translate(ex.getCause(), contender.description());
		}
		catch (TimeoutException ex) {
			acquisition.result().cancel(false);
			awaitSettled(acquisition, engine, contender);
			throw new RedisUnavailableException("The " + contender.description() + " did not end within its wait and "
					+ engine.commandTimeout().toMillis() + " ms", ex);
		}
		if (value == null) {
			// Not acquired: return once Redis knows the waiter left (a fair lock's queue).
			awaitSettled(acquisition, engine, contender);
		}
		return value;
	}

	private static void awaitSettled(Acquisition<?> acquisition, RedisEngine engine, Contender<?> contender) {
		try {
			engine.await(acquisition.settled(), "end of the " + contender.description());
		}
		catch (RuntimeException ex) {
			// What is left in flight ends by itself: a queued place times out, a late hold is given back.
		}
	}

}
