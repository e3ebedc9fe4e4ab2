package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.warden.RedisUnavailableException;
import dev.warden.redis.ChannelSubscriptions.Membership;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;

/**
 * The one waiting protocol of every synchronizer that waits (locks of every kind, semaphores,
 * latches): try; if that fails and the caller waits, join the channel its releases are announced
 * on, try again once Redis has confirmed the subscription (so a release published while subscribing
 * is not missed), then sleep until a message, a hand-over or a time bound, and try again, until a
 * try succeeds or the wait is over.
 * <p>
 * It is a state machine without a thread of its own: each step runs on the thread that completed
 * the previous one (a Redis reply, a release message, or the engine's scheduler). Asynchronous
 * callers get its future; a blocking caller makes its first try on its own thread (the common,
 * uncontended case costs one blocking round trip and nothing more) and then waits for the future,
 * cancelling it when interrupted. What differs between kinds (the script, the channel, how a
 * message wakes waiters, what a hand-over gives, what a fair waiter does when it arrives and
 * leaves) is the {@link Contender}'s.
 *
 * @param <T> what a successful try gives: a fencing token, a permit id, {@code true}
 */
final class Acquisition<T> {

	/** Waits forever. */
	static final long FOREVER = Long.MAX_VALUE;

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final RedisEngine engine;

	private final Contender<T> contender;

	private final long waitNanos;

	private final long start = System.nanoTime();

	private final CompletableFuture<@Nullable T> result = new CompletableFuture<>();

	/** Completes once nothing of this acquisition is left in flight after it ended. */
	private final CompletableFuture<Void> settled = new CompletableFuture<>();

	// Guarded by this.
	private @Nullable Membership<LockWaiters> waiting;

	private LockWaiters.@Nullable Sleeper asleep;

	private @Nullable ScheduledFuture<?> sleepTimer;

	private boolean stopped;

	/** A try, or a wake-up claimed by a release, whose outcome has not been handled yet. */
	private boolean inFlight;

	/** Commands sent after the end (leaving a queue, giving back a late win) not yet answered. */
	private int closing;

	private Acquisition(RedisEngine engine, Contender<T> contender, long waitNanos) {
		this.engine = engine;
		this.contender = contender;
		this.waitNanos = waitNanos;
	}

	/**
	 * What one kind of waiter does at each step of the protocol.
	 *
	 * @param <T> what a successful try gives
	 */
	interface Contender<T> {

		/**
		 * One try.
		 * @param willWait whether the caller waits if it fails (a fair lock queues the waiter then)
		 * @return its outcome
		 */
		CompletableFuture<Try<T>> tryOnce(boolean willWait);

		/** The channel on which this waiter is told to try again. */
		String channel();

		/** Creates the channel's waiters, which decide how many a message wakes. */
		Supplier<LockWaiters> waiters();

		/** What the synchronizer is, for messages: {@code lock of 'orders'}. */
		String description();

		/** What this waiter takes a hand-over from a release of its own client as, if it can take one. */
		default LockWaiters.@Nullable Successor successor() {
			return null;
		}

		/**
		 * A release of this client handed the synchronizer to this waiter.
		 * @param token the fencing token the hand-over gave (0 when none was asked for)
		 * @return what a successful try would have given
		 */
		default T handedOver(long token) {
			throw new IllegalStateException(description() + " is never handed over");
		}

		/** The caller begins to wait (before its first try). */
		default void waitBegins() {
		}

		/**
		 * The caller stopped waiting.
		 * @param acquired whether it got what it waited for
		 * @return completes once Redis has what leaving requires (a fair waiter's place given up)
		 */
		default CompletableFuture<?> waitEnds(boolean acquired) {
			return DONE;
		}

		/**
		 * Undoes a try that succeeded after the caller stopped waiting (it cancelled).
		 * @param value what the try gave
		 * @return completes once it is undone
		 */
		CompletableFuture<?> giveBack(T value);

	}

	/**
	 * The outcome of one try.
	 *
	 * @param value what it gave when it succeeded, else {@code null}
	 * @param retryInMillis when it failed: the longest sleep before the next try (a lease that runs
	 * out then), or a negative value to sleep until a message
	 * @param <T> what a successful try gives
	 */
	record Try<T>(@Nullable T value, long retryInMillis) {

		static <T> Try<T> succeeded(T value) {
			return new Try<>(value, 0);
		}

		static <T> Try<T> failed(long retryInMillis) {
			return new Try<>(null, retryInMillis);
		}

		boolean succeeded() {
			return value != null;
		}

	}

	/**
	 * Acquires without blocking a thread.
	 * @param engine the client's engine
	 * @param contender the waiter
	 * @param waitNanos how long to wait; 0 tries once; {@link #FOREVER}
	 * @param outcome what the caller sees: applied to what the winning try gave, or to {@code null}
	 * when the wait ended first
	 * @param <T> what a successful try gives
	 * @param <R> what the caller sees
	 * @return completes with the outcome, or exceptionally when Redis failed; cancelling it stops
	 * the wait and gives back a late win, and fails once the outcome is known (a win is then the
	 * caller's to keep or give back)
	 */
	static <T, R> CompletableFuture<R> start(RedisEngine engine, Contender<T> contender, long waitNanos,
			Function<@Nullable T, R> outcome) {
		Acquisition<T> acquisition = new Acquisition<>(engine, contender, waitNanos);
		CompletableFuture<R> seen = new CompletableFuture<>() {
			@Override
			public boolean cancel(boolean mayInterruptIfRunning) {
				// Only an acquisition still under way can be cancelled: a win already made is delivered.
				if (!acquisition.result.cancel(mayInterruptIfRunning)) {
					return false;
				}
				super.cancel(mayInterruptIfRunning);
				return true;
			}
		};
		acquisition.result.whenComplete((value, failure) -> {
			if (failure != null) {
				seen.completeExceptionally(failure);
			}
			else {
				seen.complete(outcome.apply(value));
			}
		});
		acquisition.open();
		acquisition.attempt(true);
		return seen;
	}

	/**
	 * Acquires, blocking the calling thread.
	 * @param engine the client's engine
	 * @param contender the waiter
	 * @param waitNanos how long to wait; 0 tries once; {@link #FOREVER}
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
	 * @param waitNanos how long to wait; 0 tries once; {@link #FOREVER}
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
			if (waitNanos <= 0) {
				return engine.await(contender.tryOnce(false), contender.description()).value();
			}
			Acquisition<T> acquisition = new Acquisition<>(engine, contender, waitNanos);
			acquisition.open();
			Try<T> first;
			try {
				first = engine.await(contender.tryOnce(true), contender.description());
			}
			catch (RuntimeException ex) {
				acquisition.fail(ex);
				throw ex;
			}
			acquisition.tried(first, null, true);
			return acquisition.blockUntilDone(interruptibly);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void open() {
		if (waitNanos > 0) {
			contender.waitBegins();
		}
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				stopWaiting(false);
			}
		});
	}

	private @Nullable T blockUntilDone(boolean interruptibly) throws InterruptedException {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return outcome();
				}
				catch (InterruptedException ex) {
					if (interruptibly && result.cancel(false)) {
						awaitSettled();
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
	private @Nullable T outcome() throws InterruptedException {
		T value;
		try {
			if (waitNanos == FOREVER) {
				value = result.get();
			}
			else {
				long guard = remaining() + 3 * engine.commandTimeout().toNanos();
				value = result.get(Math.max(0, guard), TimeUnit.NANOSECONDS);
			}
		}
		catch (ExecutionException ex) {
			throw RedisEngine.translate(ex.getCause(), contender.description());
		}
		catch (TimeoutException ex) {
			result.cancel(false);
			awaitSettled();
			throw new RedisUnavailableException("The " + contender.description() + " did not end within its wait and "
					+ engine.commandTimeout().toMillis() + " ms", ex);
		}
		if (value == null) {
			// Not acquired: return once Redis knows the waiter left (a fair lock's queue).
			awaitSettled();
		}
		return value;
	}

	private void awaitSettled() {
		try {
			engine.await(settled, "end of the " + contender.description());
		}
		catch (RuntimeException ex) {
			// What is left in flight ends by itself: a queued place times out, a late hold is given back.
		}
	}

	private long remaining() {
		return (waitNanos == FOREVER) ? FOREVER : waitNanos - (System.nanoTime() - start);
	}

	private void attempt(boolean first) {
		synchronized (this) {
			if (stopped) {
				return;
			}
			inFlight = true;
		}
		CompletableFuture<Try<T>> reply;
		try {
			reply = engine.withTimeout(contender.tryOnce(waitNanos > 0), contender.description());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((outcome, failure) -> tried(outcome, failure, first));
	}

	private void tried(@Nullable Try<T> outcome, @Nullable Throwable failure, boolean first) {
		landed();
		if (failure != null || outcome == null) {
			fail((failure != null) ? failure : new IllegalStateException("No reply"));
		}
		else if (outcome.succeeded()) {
			acquired(outcome.value());
		}
		else if (result.isDone()) {
			// Stopped while the try was in flight.
		}
		else if (first) {
			if (waitNanos <= 0) {
				finish(null);
			}
			else {
				subscribe();
			}
		}
		else {
			long remaining = remaining();
			if (remaining <= 0) {
				finish(null);
			}
			else {
				long bound = outcome.retryInMillis();
				sleep((bound >= 0) ? Math.min(TimeUnit.MILLISECONDS.toNanos(bound) + 1, remaining) : remaining);
			}
		}
		settleIfIdle();
	}

	private synchronized void landed() {
		inFlight = false;
	}

	private void subscribe() {
		Membership<LockWaiters> joined;
		try {
			joined = engine.subscriptions().join(contender.channel(), contender.waiters());
		}
		catch (RuntimeException ex) {
			fail(ex);
			return;
		}
		synchronized (this) {
			if (!stopped) {
				waiting = joined;
				joined = null;
			}
		}
		if (joined != null) {
			// Cancelled meanwhile.
			joined.close();
			return;
		}
		long commandTimeout = engine.commandTimeout().toNanos();
		long remaining = remaining();
		boolean boundedByWait = remaining < commandTimeout;
		// A copy: timing out this waiter must not fail the subscription shared with others.
		CompletableFuture<Void> confirmed = waitingMembership().subscribed().copy();
		ScheduledFuture<?> timer = engine.scheduler()
			.schedule(() -> confirmed.completeExceptionally(new TimeoutException()),
					Math.max(0, boundedByWait ? remaining : commandTimeout), TimeUnit.NANOSECONDS);
		confirmed.whenComplete((ignored, failure) -> {
			timer.cancel(false);
			if (failure == null || (failure instanceof TimeoutException && boundedByWait)) {
				// Subscribed, or the wait ended while subscribing: either way, one more try.
				attempt(false);
			}
			else if (failure instanceof TimeoutException) {
				fail(new RedisUnavailableException("Redis did not confirm the subscription to " + contender.channel()
						+ " within " + engine.commandTimeout().toMillis() + " ms"));
			}
			else {
				fail(RedisEngine.translate(failure, "subscription to " + contender.channel()));
			}
		});
	}

	private synchronized Membership<LockWaiters> waitingMembership() {
		Membership<LockWaiters> joined = waiting;
		if (joined == null) {
			throw new IllegalStateException("Not subscribed");
		}
		return joined;
	}

	private void sleep(long nanos) {
		LockWaiters waiters;
		LockWaiters.Sleeper sleeper;
		synchronized (this) {
			if (stopped || waiting == null) {
				return;
			}
			waiters = waiting.listener();
			sleeper = waiters.sleep(contender.successor());
			asleep = sleeper;
		}
		ScheduledFuture<?> timer = engine.scheduler().schedule(() -> {
			// Not claimed by a release: wake up for the time bound instead.
			if (!waiters.withdraw(sleeper)) {
				sleeper.wakeUp.complete(null);
			}
		}, nanos, TimeUnit.NANOSECONDS);
		boolean stillAsleep;
		synchronized (this) {
			stillAsleep = asleep == sleeper;
			if (stillAsleep) {
				sleepTimer = timer;
			}
		}
		if (!stillAsleep) {
			// Woken or stopped already: nothing is left for the timer to end.
			timer.cancel(false);
		}
		sleeper.wakeUp.whenComplete((token, failure) -> {
			timer.cancel(false);
			synchronized (this) {
				if (asleep == sleeper) {
					asleep = null;
					sleepTimer = null;
				}
				inFlight = false;
			}
			if (failure != null) {
				// A hand-over to this waiter failed without a known outcome: if the synchronizer
				// reached it, it expires with its lease.
				fail(failure);
			}
			else if (token != null) {
				acquired(contender.handedOver(token));
			}
			else if (result.isDone()) {
				// Stopped while asleep: a release that chose this waiter goes to another.
				waiters.wakeOne();
			}
			else {
				attempt(false);
			}
			settleIfIdle();
		});
	}

	private void acquired(T value) {
		if (finish(value)) {
			return;
		}
		// The caller stopped waiting while the winning try was in flight: give it back.
		CompletableFuture<?> givingBack;
		try {
			givingBack = contender.giveBack(value);
		}
		catch (RuntimeException ex) {
			givingBack = DONE;
		}
		closing(givingBack);
	}

	private void fail(Throwable failure) {
		stopWaiting(false);
		result.completeExceptionally(RedisEngine.translate(failure, contender.description()));
	}

	private boolean finish(@Nullable T value) {
		stopWaiting(value != null);
		return result.complete(value);
	}

	/** Leaves the channel and, when nothing was acquired, the waiters' queue; once. */
	private void stopWaiting(boolean acquired) {
		Membership<LockWaiters> joined;
		LockWaiters.Sleeper pending;
		ScheduledFuture<?> timer;
		synchronized (this) {
			if (stopped) {
				return;
			}
			stopped = true;
			joined = waiting;
			pending = asleep;
			timer = sleepTimer;
			waiting = null;
			asleep = null;
			sleepTimer = null;
			if (pending != null) {
				// Until withdrawn, its wake-up may still come and must be handled.
				inFlight = true;
			}
		}
		if (timer != null) {
			timer.cancel(false);
		}
		if (joined != null) {
			// When a release already chose this waiter, its wake-up's own callback handles the outcome.
			if (pending != null && !joined.listener().withdraw(pending)) {
				landed();
			}
			joined.close();
		}
		else if (pending != null) {
			landed();
		}
		CompletableFuture<?> leaving;
		try {
			leaving = (waitNanos > 0) ? contender.waitEnds(acquired) : DONE;
		}
		catch (RuntimeException ex) {
			leaving = DONE;
		}
		closing(leaving);
	}

	private void closing(CompletableFuture<?> command) {
		synchronized (this) {
			closing++;
		}
		command.whenComplete((ignored, failure) -> {
			synchronized (this) {
				closing--;
			}
			settleIfIdle();
		});
	}

	private void settleIfIdle() {
		synchronized (this) {
			if (!stopped || inFlight || closing > 0) {
				return;
			}
		}
		settled.complete(null);
	}

}
