package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

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
 * callers get its future; {@link BlockingAcquisition} makes a blocking caller's first try on its
 * own thread and then waits for the future. What differs between kinds (the script, the channel, how a
 * message wakes waiters, what a hand-over gives, what a fair waiter does when it arrives and
 * leaves) is the {@link Contender}'s.
 *
 * @param <T> what a successful try gives: a fencing token, a permit id, {@code true}
 */
final class Acquisition<T> {

	/** Waits forever. */
	static final long FOREVER = Long.MAX_VALUE;

	/**
	 * How many tries of one acquisition may be lost to a closing connection and tried again
	 * ({@link Contender#triesAgainAfterALostReply()}): a fail-over closes each connection once.
	 */
	static final int LOST_TRIES = 3;

	private final RedisEngine engine;

	private final Contender<T> contender;

	private final long waitNanos;

	private final long start;

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

	/** Tries lost to a closing connection and tried again. */
	private int lostTries;

	/** Commands sent after the end (leaving a queue, giving back a late win) not yet answered. */
	private int closing;

	/**
	 * The channel's subscription as it was when the first try was sent, when it was confirmed then
	 * ({@link dev.warden.redis.ChannelSubscriptions#confirmedSubscription}).
	 */
	private @Nullable Object listeningBeforeFirstTry;

	private Acquisition(RedisEngine engine, Contender<T> contender, long waitNanos, long start) {
		this.engine = engine;
		this.contender = contender;
		this.waitNanos = waitNanos;
		this.start = start;
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
		Acquisition<T> acquisition = new Acquisition<>(engine, contender, waitNanos, System.nanoTime());
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
		if (waitNanos > 0) {
			contender.waitBegins();
		}
		acquisition.watchCancellation();
		acquisition.attempt(true);
		return seen;
	}

	/**
	 * Goes on after a first try that failed, made by a blocking caller on its own thread.
	 * @param engine the client's engine
	 * @param contender the waiter, whose wait has begun
	 * @param waitNanos how long to wait, positive; {@link #FOREVER}
	 * @param start when the wait began ({@link System#nanoTime()})
	 * @param first the first try's outcome
	 * @param listeningBeforeFirstTry the channel's {@linkplain #listening confirmed subscription} taken
	 * before the first try was sent, or {@code null}
	 * @param lostTries how many tries the caller sent again already after their connection closed
	 * before Redis answered: they count against {@link #LOST_TRIES}
	 * @param <T> what a successful try gives
	 * @return the acquisition under way
	 */
	static <T> Acquisition<T> afterFirstTry(RedisEngine engine, Contender<T> contender, long waitNanos, long start,
			Contender.Try<T> first, @Nullable Object listeningBeforeFirstTry, int lostTries) {
		Acquisition<T> acquisition = new Acquisition<>(engine, contender, waitNanos, start);
		acquisition.listeningBeforeFirstTry = listeningBeforeFirstTry;
		acquisition.lostTries = lostTries;
		acquisition.watchCancellation();
		acquisition.tried(first, null, true);
		return acquisition;
	}

	/**
	 * Completes with what the winning try gave, with {@code null} when the wait ended first, or
	 * exceptionally when Redis failed; cancelling it stops the wait and gives back a late win.
	 */
	CompletableFuture<@Nullable T> result() {
		return result;
	}

	/** Completes once the acquisition ended and nothing of it is left in flight. */
	CompletableFuture<Void> settled() {
		return settled;
	}

	private void watchCancellation() {
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				stopWaiting(false);
			}
		});
	}

	/** The wait left, in nanoseconds; {@link #FOREVER} for a wait without end. */
	long remaining() {
		return (waitNanos == FOREVER) ? FOREVER : waitNanos - (System.nanoTime() - start);
	}

	private void attempt(boolean first) {
		synchronized (this) {
			if (stopped) {
				return;
			}
			inFlight = true;
		}
		CompletableFuture<Contender.Try<T>> reply;
		try {
			if (first && waitNanos > 0) {
				listeningBeforeFirstTry = listening(engine, contender);
			}
			reply = engine.withTimeout(contender.tryOnce(waitNanos > 0), contender.description());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((outcome, failure) -> tried(outcome, failure, first));
	}

	private void tried(Contender.@Nullable Try<T> outcome, @Nullable Throwable failure, boolean first) {
		landed();
		if (failure != null && triesAgain(failure)) {
			attempt(first);
		}
		else if (failure != null && result.isCancelled()) {
			// Cancelled while a try was in flight that failed without telling whether it ran: what it
			// may have taken is given back, as a late win is.
			closing(contender.giveBackUnknown(failure));
		}
		else if (failure != null || outcome == null) {
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
				subscribe(outcome);
			}
		}
		else {
			sleepAfter(outcome);
		}
		settleIfIdle();
	}

	/**
	 * Whether a try that failed with {@code failure} is tried again: its connection closed before
	 * Redis answered, the contender may try twice, and the wait is not over.
	 */
	private boolean triesAgain(Throwable failure) {
		if (!mayTryAgain(contender, failure, remaining()) || result.isDone()) {
			return false;
		}
		synchronized (this) {
			return lostTries++ < LOST_TRIES;
		}
	}

	/**
	 * Whether a try lost to a closing connection may be sent again, the wait having
	 * {@code remainingNanos} left ({@link Contender#triesAgainAfterALostReply()}).
	 */
	static boolean mayTryAgain(Contender<?> contender, Throwable failure, long remainingNanos) {
		return remainingNanos > 0 && contender.triesAgainAfterALostReply() && RedisEngine.closedBeforeReply(failure);
	}

	/**
	 * A mark of the subscription to the contender's channel when Redis has confirmed it, taken just
	 * before a first try: a waiter that then joins under the same mark needs no second try, since
	 * the channel's listener heard every release announced since the first try, and each release
	 * is owed to one waiter only ({@link Contender#oneWaiterPerRelease()}); {@code null} otherwise.
	 */
	static @Nullable Object listening(RedisEngine engine, Contender<?> contender) {
		return contender.oneWaiterPerRelease() ? engine.subscriptions().confirmedSubscription(contender.channel()) : null;
	}

	/** After a failed try: sleeps until a message, a hand-over or the try's time bound, within the wait. */
	private void sleepAfter(Contender.Try<T> outcome) {
		long remaining = remaining();
		if (remaining <= 0) {
			finish(null);
		}
		else {
			long bound = outcome.retryInMillis();
			sleep((bound >= 0) ? Math.min(TimeUnit.MILLISECONDS.toNanos(bound) + 1, remaining) : remaining);
		}
	}

	private synchronized void landed() {
		inFlight = false;
	}

	private void subscribe(Contender.Try<T> first) {
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
		if (waitingMembership().continues(listeningBeforeFirstTry)) {
			// The channel was listened to, without a break, from before the first try: a release
			// since then woke a waiter or is remembered for the next to sleep. No second try.
			sleepAfter(first);
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
			givingBack = Contender.DONE;
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
			leaving = (waitNanos > 0) ? contender.waitEnds(acquired) : Contender.DONE;
		}
		catch (RuntimeException ex) {
			leaving = Contender.DONE;
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
