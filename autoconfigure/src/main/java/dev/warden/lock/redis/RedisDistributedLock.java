package dev.warden.lock.redis;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.warden.RedisUnavailableException;
import dev.warden.lock.DistributedLock;
import dev.warden.lock.LockOwner;
import dev.warden.lock.Uninterruptibly;
import dev.warden.redis.ChannelSubscriptions.Membership;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DistributedLock} on Redis, with Redisson's {@code RLock} layout.
 * <p>
 * Instances are cheap views of one lock name; every state lives in Redis, in the client's
 * {@link LeaseRenewal} and in the client's channel subscriptions.
 */
public final class RedisDistributedLock implements DistributedLock {

	private static final Logger logger = LoggerFactory.getLogger(RedisDistributedLock.class);

	/** The prefix of every lock's release channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_lock__channel";

	private static final long WATCHDOG = -1;

	private final LockLayout layout;

	private final String name;

	private final RedisEngine engine;

	private final LeaseRenewal renewal;

	private final HandOvers handOvers;

	private final Supplier<LockOwner> currentThreadOwner;

	// Built once: they name the lock in exceptions, and calls are frequent.
	private final String acquireAction;

	private final String releaseAction;

	/**
	 * A reentrant lock, Redisson's {@code RLock}.
	 * @param name the lock's name and Redis key
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public RedisDistributedLock(String name, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		this(new LockLayout.Reentrant(name), engine, renewal, currentThreadOwner);
	}

	/**
	 * A fair lock, Redisson's fair {@code RLock}: waiters acquire in the order they arrived.
	 * @param name the lock's name and Redis key
	 * @param waiterTimeoutMillis how long a waiter keeps its place in the queue once its turn could
	 * have come (so a crashed waiter does not block those behind it for longer)
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 * @return the lock
	 */
	public static RedisDistributedLock fair(String name, long waiterTimeoutMillis, RedisEngine engine,
			LeaseRenewal renewal, Supplier<LockOwner> currentThreadOwner) {
		return new RedisDistributedLock(new LockLayout.Fair(name, waiterTimeoutMillis), engine, renewal,
				currentThreadOwner);
	}

	RedisDistributedLock(LockLayout layout, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		this.layout = layout;
		this.name = layout.name;
		this.engine = engine;
		this.renewal = renewal;
		this.handOvers = renewal.handOvers();
		this.currentThreadOwner = currentThreadOwner;
		this.acquireAction = "lock of '" + name + "'";
		this.releaseAction = "unlock of '" + name + "'";
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public void lock() {
		acquireUninterruptibly(WATCHDOG);
	}

	@Override
	public void lock(long leaseTime, TimeUnit unit) {
		acquireUninterruptibly(leaseMillis(leaseTime, unit));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(currentThreadOwner.get(), BlockingWait.FOREVER, WATCHDOG);
	}

	@Override
	public boolean tryLock() {
		return attempt(currentThreadOwner.get(), WATCHDOG, false, false).acquired();
	}

	@Override
	public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
		return acquire(currentThreadOwner.get(), waitNanos(waitTime, unit), WATCHDOG);
	}

	@Override
	public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		return acquire(currentThreadOwner.get(), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit));
	}

	@Override
	public boolean tryLock(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException {
		return acquire(requireOwner(owner), waitNanos(waitTime, unit), WATCHDOG);
	}

	@Override
	public boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException {
		return acquire(requireOwner(owner), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit));
	}

	@Override
	public long lockWithToken() {
		LockOwner owner = currentThreadOwner.get();
		return Uninterruptibly.await(() -> acquireToken(owner, BlockingWait.FOREVER, WATCHDOG, true));
	}

	@Override
	public OptionalLong tryLockWithToken(long waitTime, TimeUnit unit) throws InterruptedException {
		return token(acquireToken(currentThreadOwner.get(), waitNanos(waitTime, unit), WATCHDOG, true));
	}

	@Override
	public OptionalLong tryLockWithToken(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException {
		return token(acquireToken(requireOwner(owner), waitNanos(waitTime, unit), WATCHDOG, true));
	}

	@Override
	public OptionalLong tryLockWithToken(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException {
		return token(acquireToken(requireOwner(owner), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit), true));
	}

	private static OptionalLong token(long token) {
		return (token >= 0) ? OptionalLong.of(token) : OptionalLong.empty();
	}

	@Override
	public CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, TimeUnit unit) {
		return new AsyncAcquisition(requireOwner(owner), waitNanos(waitTime, unit), WATCHDOG).begin();
	}

	@Override
	public CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) {
		return new AsyncAcquisition(requireOwner(owner), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit))
			.begin();
	}

	@Override
	public void unlock() {
		unlock(currentThreadOwner.get());
	}

	@Override
	public void unlock(LockOwner owner) {
		engine.await(unlockAsync(owner), releaseAction);
	}

	@Override
	public CompletableFuture<Void> unlockAsync(LockOwner owner) {
		String ownerId = requireOwner(owner).id();
		LockWaiters localWaiters = localWaitersToHandOverTo();
		LockWaiters.Sleeper successor = (localWaiters != null) ? localWaiters.claimSuccessor() : null;
		if (successor != null) {
			return handOver(ownerId, localWaiters, successor);
		}
		// A release that times out is still sent when the connection comes back: it is what the
		// owner asked for. Its renewal stops either way, so the lock cannot outlive its lease.
		return layout.release(engine, ownerId)
			.handle((released, failure) -> {
				if (failure != null) {
					releasedPlainly(ownerId);
					throw RedisEngine.translate(failure, releaseAction);
				}
				if (released == null) {
					throw notHeld(ownerId);
				}
				if (released == 1L) {
					// On the reply's own thread, before any later reply (a renewal's) is handled.
					releasedPlainly(ownerId);
				}
				return null;
			});
	}

	/**
	 * This client's waiters of the lock when a release may hand it to one of them: a kind that
	 * supports it, no replica check (a hand-over is not followed by one), and not too many
	 * hand-overs in a row.
	 */
	private @Nullable LockWaiters localWaitersToHandOverTo() {
		if (!layout.handsOver() || renewal.replicaSync().enabled()) {
			return null;
		}
		if (layout instanceof LockLayout.Fair) {
			// Only the first in the queue can take it over, so no one is starved: try this client's
			// longest waiter, each on its own channel.
			String first = handOvers.firstFairWaiter(name);
			return (first != null) ? engine.subscriptions().listener(layout.waitChannel(first), LockWaiters.class)
					: null;
		}
		if (!handOvers.mayHandOver(name)) {
			return null;
		}
		return engine.subscriptions().listener(layout.channel, LockWaiters.class);
	}

	/** Releases one hold; if that frees the lock, it passes to {@code successor} in the same script. */
	private CompletableFuture<Void> handOver(String ownerId, LockWaiters waiters, LockWaiters.Sleeper successor) {
		return layout.handOver(engine, ownerId, successor.successor)
			.handle((reply, failure) -> {
				if (failure != null) {
					releasedPlainly(ownerId);
					RuntimeException translated = RedisEngine.translate(failure, releaseAction);
					// Whether the lock reached the successor is unknown: if it did, it expires with its lease.
					successor.wakeUp.completeExceptionally(translated);
					throw translated;
				}
				long outcome = (reply != null) ? reply : LockLayout.NOT_HELD;
				if (outcome > 0 || outcome == LockLayout.HANDED_OVER) {
					// The waiter first: it holds the lock already, with this token (0: it took none).
					successor.wakeUp.complete(Math.max(0, outcome));
					renewal.stop(layout, ownerId);
					if (!(layout instanceof LockLayout.Fair)) {
						handOvers.handedOver(name);
					}
					return null;
				}
				if (outcome == LockLayout.FREED) {
					// Freed, and the first waiter (someone else) was told.
					releasedPlainly(ownerId);
				}
				waiters.giveBack(successor);
				if (outcome == LockLayout.NOT_HELD) {
					throw notHeld(ownerId);
				}
				return null;
			});
	}

	/**
	 * The owner's holds ended without a hand-over: their renewal stops, and a new streak of
	 * hand-overs may begin.
	 */
	private void releasedPlainly(String ownerId) {
		renewal.stop(layout, ownerId);
		handOvers.releasedPlainly(name);
	}

	private IllegalMonitorStateException notHeld(String ownerId) {
		return new IllegalMonitorStateException("Cannot unlock '" + name + "': not held by " + ownerId
				+ " (never acquired, lease expired, or force-unlocked)");
	}

	@Override
	public boolean forceUnlock() {
		Long released = engine.await(layout.forceRelease(engine).thenApply(reply -> {
			renewal.stopAll(name);
			handOvers.releasedPlainly(name);
			return reply;
		}), "force unlock of '" + name + "'");
		return released != null && released == 1L;
	}

	@Override
	public boolean isLocked() {
		return engine.await(layout.isLocked(engine), "lock state of '" + name + "'");
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return isHeldBy(currentThreadOwner.get());
	}

	@Override
	public boolean isHeldBy(LockOwner owner) {
		String field = layout.holdField(requireOwner(owner).id());
		return Boolean.TRUE.equals(engine.await(engine.commands().hexists(name, field),
				"lock state of '" + name + "'"));
	}

	@Override
	public int getHoldCount() {
		return getHoldCount(currentThreadOwner.get());
	}

	@Override
	public int getHoldCount(LockOwner owner) {
		String field = layout.holdField(requireOwner(owner).id());
		String count = engine.await(engine.commands().hget(name, field), "hold count of '" + name + "'");
		return (count != null) ? Integer.parseInt(count) : 0;
	}

	@Override
	public long remainingTimeToLive() {
		Long ttl = engine.await(engine.commands().pttl(name), "time to live of '" + name + "'");
		return (ttl != null) ? ttl : -2;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + layout.getClass().getSimpleName() + " " + name + "]";
	}

	private void acquireUninterruptibly(long leaseMillis) {
		LockOwner owner = currentThreadOwner.get();
		Uninterruptibly.await(() -> acquire(owner, BlockingWait.FOREVER, leaseMillis));
	}

	/**
	 * Tries, then waits for release messages (or the holder's lease running out) and tries again,
	 * until acquired or the wait is over.
	 */
	private boolean acquire(LockOwner owner, long waitNanos, long leaseMillis) throws InterruptedException {
		return acquireToken(owner, waitNanos, leaseMillis, false) >= 0;
	}

	/**
	 * Like {@link #acquire}, returning the fencing token, or -1 when not acquired.
	 * @param withToken whether the acquisition (or a hand-over to it) takes a fencing token; without
	 * one it returns 0 when acquired
	 */
	private long acquireToken(LockOwner owner, long waitNanos, long leaseMillis, boolean withToken)
			throws InterruptedException {
		long[] token = { -1 };
		boolean willWait = waitNanos > 0;
		BlockingWait.Attempt attempt = new BlockingWait.Attempt() {
			@Override
			public @Nullable Long tryOnce() {
				LockLayout.Attempt attempt = attempt(owner, leaseMillis, willWait, withToken);
				if (attempt.acquired()) {
					token[0] = attempt.value();
					return null;
				}
				return attempt.value();
			}

			@Override
			public void handedOver(long handedToken) {
				token[0] = handedToken;
				watchdogIfAsked(owner.id(), leaseMillis);
			}
		};
		boolean fair = willWait && layout instanceof LockLayout.Fair;
		if (fair) {
			handOvers.fairWaiterArrived(name, owner.id());
		}
		try {
			BlockingWait.await(engine, layout.waitChannel(owner.id()), layout.waiters(), waitNanos, attempt,
					acquireAction, successor(owner, leaseMillis, withToken));
		}
		finally {
			if (fair) {
				handOvers.fairWaiterLeft(name, owner.id());
			}
			if (willWait && token[0] < 0) {
				giveUp(owner);
			}
		}
		return token[0];
	}

	/** What a waiter takes a hand-over from a release of this client as, when its kind allows it. */
	private LockWaiters.@Nullable Successor successor(LockOwner owner, long leaseMillis, boolean withToken) {
		if (!layout.handsOver()) {
			return null;
		}
		return new LockWaiters.Successor(owner.id(), (leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis,
				withToken);
	}

	/** A waiter that did not get the lock leaves its place (a fair lock's queue). */
	private void giveUp(LockOwner owner) {
		try {
			engine.await(layout.abandon(engine, owner.id()), "leaving the queue of '" + name + "'");
		}
		catch (RuntimeException ex) {
			// Its place times out by itself.
		}
	}

	/** One acquisition attempt, blocking; starts the watchdog when acquired without a lease. */
	private LockLayout.Attempt attempt(LockOwner owner, long leaseMillis, boolean willWait, boolean withToken) {
		return engine.await(attemptAsync(owner, leaseMillis, willWait, withToken), acquireAction);
	}

	private CompletableFuture<LockLayout.Attempt> attemptAsync(LockOwner owner, long leaseMillis, boolean willWait,
			boolean withToken) {
		String ownerId = owner.id();
		long lease = (leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis;
		CompletableFuture<LockLayout.Attempt> reply = layout.acquire(engine, ownerId, lease, willWait, withToken);
		ReplicaSync sync = renewal.replicaSync();
		if (sync.enabled()) {
			reply = reply.thenCompose(attempt -> attempt.acquired() ? confirmReplicated(attempt, ownerId, sync)
					: CompletableFuture.completedFuture(attempt));
		}
		return RedisEngine.map(reply, attempt -> {
			if (attempt.acquired()) {
				watchdogIfAsked(ownerId, leaseMillis);
			}
			return attempt;
		});
	}

	/** Starts renewing a hold just taken when it was taken without a lease of its own. */
	private void watchdogIfAsked(String ownerId, long leaseMillis) {
		if (leaseMillis == WATCHDOG) {
			renewal.start(layout, ownerId);
		}
	}

	/**
	 * Waits until enough replicas have the acquisition; if they do not in time, gives the hold
	 * back, so that a fail-over to a replica that never saw it cannot hand the lock to another.
	 */
	private CompletableFuture<LockLayout.Attempt> confirmReplicated(LockLayout.Attempt attempt, String ownerId,
			ReplicaSync sync) {
		return engine.commands()
			.waitForReplication(sync.replicas(), sync.timeout().toMillis())
			.toCompletableFuture()
			.thenCompose(acknowledged -> {
				if (acknowledged != null && acknowledged >= sync.replicas()) {
					return CompletableFuture.completedFuture(attempt);
				}
				logger.warn("Lock '{}' was acquired but only {} of {} replica(s) acknowledged it within {} ms; released",
						name, acknowledged, sync.replicas(), sync.timeout().toMillis());
				// Not acquired: retry no sooner than another replication wait.
				return layout.release(engine, ownerId)
					.handle((released, failure) -> new LockLayout.Attempt(false, sync.timeout().toMillis()));
			});
	}

	private static long waitNanos(long waitTime, TimeUnit unit) {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return unit.toNanos(waitTime);
	}

	private static long leaseMillis(long leaseTime, TimeUnit unit) {
		if (leaseTime <= 0) {
			throw new IllegalArgumentException("The lease time must be positive: " + leaseTime + " " + unit
					+ " (acquire without a lease to have the watchdog renew it)");
		}
		return Math.max(1, unit.toMillis(leaseTime));
	}

	private static LockOwner requireOwner(@Nullable LockOwner owner) {
		if (owner == null) {
			throw new IllegalArgumentException("The lock owner must not be null");
		}
		return owner;
	}

	/**
	 * An acquisition that waits without a thread: each step runs on the thread that completed
	 * the previous one (a Redis reply, a release message, or the scheduler's timer).
	 */
	private final class AsyncAcquisition {

		private final LockOwner owner;

		private final long waitNanos;

		private final long leaseMillis;

		/** What it takes a hand-over from a release of this client as (no fencing token). */
		private final LockWaiters.@Nullable Successor handOverAs;

		private final long start = System.nanoTime();

		private final CompletableFuture<Boolean> result = new CompletableFuture<>();

		private @Nullable Membership<LockWaiters> waiting;

		private LockWaiters.@Nullable Sleeper wakeUp;

		AsyncAcquisition(LockOwner owner, long waitNanos, long leaseMillis) {
			this.owner = owner;
			this.waitNanos = waitNanos;
			this.leaseMillis = leaseMillis;
			this.handOverAs = successor(owner, leaseMillis, false);
		}

		CompletableFuture<Boolean> begin() {
			boolean queuesFairly = waitNanos > 0 && layout instanceof LockLayout.Fair;
			if (queuesFairly) {
				// Its place among this client's waiters of the fair lock, for hand-overs.
				handOvers.fairWaiterArrived(name, owner.id());
			}
			result.whenComplete((acquired, failure) -> {
				if (queuesFairly) {
					handOvers.fairWaiterLeft(name, owner.id());
				}
				if (result.isCancelled()) {
					stopWaiting(false);
				}
			});
			engine.withTimeout(attemptAsync(owner, leaseMillis, waitNanos > 0, false), acquireAction)
				.whenComplete((attempt, failure) -> {
					if (failure != null) {
						fail(failure);
					}
					else if (attempt.acquired()) {
						acquired();
					}
					else if (waitNanos <= 0) {
						finish(false);
					}
					else {
						subscribe();
					}
				});
			return result;
		}

		private void subscribe() {
			Membership<LockWaiters> joined;
			try {
				joined = engine.subscriptions().join(layout.waitChannel(owner.id()), layout.waiters());
			}
			catch (RuntimeException ex) {
				fail(ex);
				return;
			}
			synchronized (this) {
				waiting = joined;
			}
			long commandTimeout = engine.commandTimeout().toNanos();
			long remaining = BlockingWait.remaining(start, waitNanos);
			boolean boundedByWait = remaining < commandTimeout;
			// A copy: timing out this waiter must not fail the subscription shared with others.
			CompletableFuture<Void> confirmed = joined.subscribed().copy();
			ScheduledFuture<?> timer = engine.scheduler()
				.schedule(() -> confirmed.completeExceptionally(new TimeoutException()),
						Math.max(0, boundedByWait ? remaining : commandTimeout), TimeUnit.NANOSECONDS);
			confirmed.whenComplete((ignored, failure) -> {
				timer.cancel(false);
				if (failure == null || (failure instanceof TimeoutException && boundedByWait)) {
					retry();
				}
				else if (failure instanceof TimeoutException) {
					fail(new RedisUnavailableException("Redis did not confirm the subscription to "
							+ layout.waitChannel(owner.id())
							+ " within " + engine.commandTimeout().toMillis() + " ms"));
				}
				else {
					fail(failure);
				}
			});
		}

		private void retry() {
			if (result.isDone()) {
				return;
			}
			engine.withTimeout(attemptAsync(owner, leaseMillis, waitNanos > 0, false), acquireAction)
				.whenComplete((attempt, failure) -> {
					if (failure != null) {
						fail(failure);
						return;
					}
					if (attempt.acquired()) {
						acquired();
						return;
					}
					long ttl = attempt.value();
					long remaining = BlockingWait.remaining(start, waitNanos);
					if (remaining <= 0) {
						finish(false);
						return;
					}
					sleep((ttl >= 0) ? Math.min(TimeUnit.MILLISECONDS.toNanos(ttl) + 1, remaining) : remaining);
				});
		}

		private void sleep(long nanos) {
			LockWaiters waiters;
			LockWaiters.Sleeper next;
			synchronized (this) {
				if (waiting == null || result.isDone()) {
					return;
				}
				waiters = waiting.listener();
				next = waiters.sleep(handOverAs);
				wakeUp = next;
			}
			ScheduledFuture<?> timer = engine.scheduler().schedule(() -> {
				// Not claimed by a release: wake up for the holder's lease instead.
				if (!waiters.withdraw(next)) {
					next.wakeUp.complete(null);
				}
			}, nanos, TimeUnit.NANOSECONDS);
			next.wakeUp.whenComplete((handedOver, failure) -> {
				timer.cancel(false);
				if (failure != null) {
					// A hand-over to this waiter failed without a known outcome: if the lock reached
					// it, it expires with its lease.
					fail(failure);
				}
				else if (handedOver != null) {
					// A release by this client handed the lock over: this owner holds it already.
					watchdogIfAsked(owner.id(), leaseMillis);
					acquired();
				}
				else if (result.isDone()) {
					// Stopped (cancelled) while asleep: a release that chose this waiter goes to another.
					waiters.wakeOne();
				}
				else {
					retry();
				}
			});
		}

		private void acquired() {
			if (!finish(true)) {
				// Cancelled while the winning attempt was in flight: give the hold back.
				unlockAsync(owner);
			}
		}

		private void fail(Throwable failure) {
			stopWaiting(false);
			result.completeExceptionally(RedisEngine.translate(failure, acquireAction));
		}

		private boolean finish(boolean acquired) {
			stopWaiting(acquired);
			return result.complete(acquired);
		}

		/** Leaves the channel and, when the lock was not acquired, the waiters' queue (a fair lock's). */
		private void stopWaiting(boolean acquired) {
			if (!acquired && waitNanos > 0) {
				layout.abandon(engine, owner.id());
			}
			Membership<LockWaiters> joined;
			LockWaiters.Sleeper pending;
			synchronized (this) {
				joined = waiting;
				pending = wakeUp;
				waiting = null;
				wakeUp = null;
			}
			if (joined == null) {
				return;
			}
			if (pending != null) {
				// If a release already chose this waiter, the wake-up's own callback passes it on.
				joined.listener().withdraw(pending);
			}
			joined.close();
		}

	}

}
