package dev.warden.lock.redis;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.warden.RedisUnavailableException;
import dev.warden.lock.DistributedMutex;
import dev.warden.lock.LockArguments;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import dev.warden.redis.ReplicationBarrier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.warden.lock.LockArguments.waitNanos;

/**
 * What every exclusive lock on Redis does the same way, whatever its {@link LockLayout}: the
 * thread-bound and owner-bound API, leases and the watchdog, waiting through {@link Acquisition},
 * fencing tokens, and the counting of known holds. {@link RedisDistributedLock} and
 * {@link RedisSimpleLock} add what their interfaces add.
 * <p>
 * Instances are cheap views of one lock name; every state lives in Redis, in the client's
 * {@link LeaseRenewal} and in the client's channel subscriptions.
 */
abstract sealed class ExclusiveLock implements DistributedMutex permits RedisDistributedLock, RedisSimpleLock {

	private static final Logger logger = LoggerFactory.getLogger(ExclusiveLock.class);

	private static final long WATCHDOG = -1;

	private final LockLayout layout;

	private final String name;

	private final RedisEngine engine;

	private final LeaseRenewal renewal;

	private final HandOvers handOvers;

	private final KnownHolds holds;

	private final LockRelease release;

	private final Supplier<LockOwner> currentThreadOwner;

	// Built once: it names the lock in exceptions, and calls are frequent.
	private final String acquireAction;

	ExclusiveLock(LockLayout layout, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		this.layout = layout;
		this.name = layout.name;
		this.engine = engine;
		this.renewal = renewal;
		this.handOvers = renewal.handOvers();
		this.holds = renewal.holds();
		this.currentThreadOwner = currentThreadOwner;
		this.acquireAction = "lock of '" + name + "'";
		this.release = new LockRelease(layout, engine, renewal);
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public void lock() {
		acquireUninterruptibly(new Waiter(currentThreadOwner.get(), WATCHDOG, false));
	}

	@Override
	public void lock(long leaseTime, TimeUnit unit) {
		acquireUninterruptibly(new Waiter(currentThreadOwner.get(), leaseMillis(leaseTime, unit), false));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(currentThreadOwner.get(), Acquisition.FOREVER, WATCHDOG);
	}

	@Override
	public boolean tryLock() {
		Waiter waiter = new Waiter(currentThreadOwner.get(), WATCHDOG, false);
		return BlockingAcquisition.awaitUninterruptibly(engine, waiter, 0) != null;
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
		return acquireUninterruptibly(new Waiter(currentThreadOwner.get(), WATCHDOG, true));
	}

	@Override
	public OptionalLong tryLockWithToken(long waitTime, TimeUnit unit) throws InterruptedException {
		return token(acquireToken(currentThreadOwner.get(), waitNanos(waitTime, unit), WATCHDOG));
	}

	@Override
	public OptionalLong tryLockWithToken(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException {
		return token(acquireToken(requireOwner(owner), waitNanos(waitTime, unit), WATCHDOG));
	}

	@Override
	public OptionalLong tryLockWithToken(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException {
		return token(acquireToken(requireOwner(owner), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit)));
	}

	private static OptionalLong token(@Nullable Long token) {
		return (token != null) ? OptionalLong.of(token) : OptionalLong.empty();
	}

	@Override
	public CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, TimeUnit unit) {
		return acquireAsync(requireOwner(owner), waitNanos(waitTime, unit), WATCHDOG);
	}

	@Override
	public CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) {
		return acquireAsync(requireOwner(owner), waitNanos(waitTime, unit), leaseMillis(leaseTime, unit));
	}

	private CompletableFuture<Boolean> acquireAsync(LockOwner owner, long waitNanos, long leaseMillis) {
		return Acquisition.start(engine, new Waiter(owner, leaseMillis, false), waitNanos, token -> token != null);
	}

	@Override
	public CompletableFuture<OptionalLong> tryLockWithTokenAsync(LockOwner owner, long waitTime, TimeUnit unit) {
		return Acquisition.start(engine, new Waiter(requireOwner(owner), WATCHDOG, true), waitNanos(waitTime, unit),
				ExclusiveLock::token);
	}

	@Override
	public CompletableFuture<OptionalLong> tryLockWithTokenAsync(LockOwner owner, long waitTime, long leaseTime,
			TimeUnit unit) {
		return Acquisition.start(engine, new Waiter(requireOwner(owner), leaseMillis(leaseTime, unit), true),
				waitNanos(waitTime, unit), ExclusiveLock::token);
	}

	@Override
	public void unlock() {
		unlock(currentThreadOwner.get());
	}

	@Override
	public void unlock(LockOwner owner) {
		engine.await(unlockAsync(owner), release.action());
	}

	@Override
	public CompletableFuture<Void> unlockAsync(LockOwner owner) {
		return release.release(requireOwner(owner).id());
	}

	@Override
	public CompletableFuture<Void> unlockAfterAsync(LockOwner owner, long delay, TimeUnit unit) {
		if (delay < 0 || unit == null) {
			throw new IllegalArgumentException("The delay must be zero or positive, with a unit: " + delay + " " + unit);
		}
		long delayMillis = (delay == 0) ? 0 : LockArguments.leaseMillis(delay, unit, "The delay");
		return release.releaseAfter(requireOwner(owner).id(), delayMillis);
	}

	@Override
	public boolean forceUnlock() {
		return engine.await(release.forceRelease(), "force unlock of '" + name + "'");
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
		return holdCount(owner) > 0;
	}

	/** How many holds {@code owner} has in Redis; 0 when none. */
	final int holdCount(LockOwner owner) {
		return engine.await(layout.holdCount(engine, requireOwner(owner).id()), "hold count of '" + name + "'");
	}

	/** The owner of the calling thread. */
	final LockOwner currentThreadOwner() {
		return currentThreadOwner.get();
	}

	@Override
	public long remainingTimeToLive() {
		Long ttl = engine.await(engine.commands(name).pttl(name), "time to live of '" + name + "'");
		return (ttl != null) ? ttl : -2;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + layout.getClass().getSimpleName() + " " + name + "]";
	}

	/** Waits as long as it takes, keeping an interrupt for the caller; returns the fencing token. */
	private long acquireUninterruptibly(Waiter waiter) {
		Long token = BlockingAcquisition.awaitUninterruptibly(engine, waiter, Acquisition.FOREVER);
		if (token == null) {
			throw new IllegalStateException("A wait without end ended without the " + acquireAction);
		}
		return token;
	}

	/**
	 * Tries, then waits for release messages (or the holder's lease running out) and tries again,
	 * until acquired or the wait is over.
	 */
	private boolean acquire(LockOwner owner, long waitNanos, long leaseMillis) throws InterruptedException {
		return BlockingAcquisition.await(engine, new Waiter(owner, leaseMillis, false), waitNanos) != null;
	}

	/** Like {@link #acquire}, returning the fencing token, or {@code null} when not acquired. */
	private @Nullable Long acquireToken(LockOwner owner, long waitNanos, long leaseMillis) throws InterruptedException {
		return BlockingAcquisition.await(engine, new Waiter(owner, leaseMillis, true), waitNanos);
	}

	private CompletableFuture<Contender.Try<Long>> attemptAsync(LockOwner owner, long leaseMillis, boolean willWait,
			boolean withToken) {
		String ownerId = owner.id();
		long lease = (leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis;
		ReplicaSync sync = renewal.replicaSync();
		int required = sync.required(layout.name);
		CompletableFuture<Contender.Try<Long>> reply;
		if (required == 0) {
			reply = layout.acquire(engine, ownerId, lease, willWait, withToken);
		}
		else {
			// On a Redis Cluster the script goes to its master's own connection, before the shared WAIT.
			ReplicationBarrier.ReplicatedWrite<Contender.Try<Long>> write = engine.writeReplicated(layout.name,
					target -> layout.acquire(target, ownerId, lease, willWait, withToken), required,
					sync.timeout().toMillis());
			reply = write.reply()
				.thenCompose(attempt -> attempt.succeeded()
						? confirmReplicated(attempt, ownerId, sync, required, write.acknowledged())
						: CompletableFuture.completedFuture(attempt));
		}
		// A failure, a timeout or a cancellation leaves the outcome unknown: the hold may be in Redis.
		return RedisEngine.whenSettled(reply,
				attempt -> attempt.succeeded() ? held(ownerId, leaseMillis) : refusedIfHeldByAsker(attempt, ownerId),
				failure -> holds.acquisitionUnknown(layout, ownerId, lease));
	}

	/**
	 * A kind that is not reentrant answers an owner that holds the lock already: the acquisition
	 * fails at once, instead of waiting for the owner's own lease to run out.
	 */
	private @Nullable CompletableFuture<?> refusedIfHeldByAsker(Contender.Try<Long> attempt, String ownerId) {
		if (attempt.retryInMillis() == LockLayout.HELD_BY_ASKER) {
			throw new IllegalStateException("Lock '" + name + "' is already held by " + ownerId
					+ ", and a simple lock is not reentrant: release it first, or use a reentrant lock");
		}
		return null;
	}

	/**
	 * A hold was just taken: it is counted, and the watchdog renews it when it has no lease of its
	 * own. When a reply of this owner on this lock was lost since, the holds it may have left are
	 * dropped first.
	 * @return completes once those holds are dropped; {@code null} when there were none to drop
	 */
	private @Nullable CompletableFuture<?> held(String ownerId, long leaseMillis) {
		long lease = (leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis;
		int trimTo = holds.acquired(layout, ownerId, lease, leaseMillis == WATCHDOG);
		watchdogIfAsked(ownerId, leaseMillis);
		return (trimTo > 0) ? LockRelease.dropHiddenHolds(holds, layout, ownerId, trimTo, lease) : null;
	}

	/**
	 * Drops the hold a try may have taken without its caller knowing (its reply lost after the caller
	 * stopped waiting): the owner's holds in Redis are trimmed to those its client knows of, and when
	 * it knows of none, a hold found is released as an unlock would.
	 */
	private CompletableFuture<?> dropUnknownHold(LockOwner owner, long leaseMillis) {
		String ownerId = owner.id();
		int known = holds.known(layout, ownerId);
		if (known > 0) {
			long lease = (leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis;
			return LockRelease.dropHiddenHolds(holds, layout, ownerId, known, lease);
		}
		// Not held (the try did not run) is the other possible answer.
		try {
			return unlockAsync(owner).handle((released, failure) -> null);
		}
		catch (RuntimeException ex) {
			return Contender.DONE;
		}
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
	private CompletableFuture<Contender.Try<Long>> confirmReplicated(Contender.Try<Long> attempt, String ownerId,
			ReplicaSync sync, int required, CompletableFuture<Long> acknowledgement) {
		String key = layout.name;
		return acknowledgement.thenCompose(acknowledged -> sync.accepts(key, acknowledged, required).thenCompose(accepted -> {
			if (accepted) {
				return CompletableFuture.completedFuture(attempt);
			}
			logger.warn("Lock '{}' was acquired but {}; released", name, sync.shortfall(key, acknowledged, required));
			// Not acquired: retry no sooner than another replication wait.
			return layout.release(engine, ownerId)
				.handle((released, failure) -> Contender.Try.<Long>failed(sync.timeout().toMillis()));
		}));
	}

	private static long leaseMillis(long leaseTime, TimeUnit unit) {
		return LockArguments.leaseMillis(leaseTime, unit, "The lease time");
	}

	private static LockOwner requireOwner(@Nullable LockOwner owner) {
		if (owner == null) {
			throw new IllegalArgumentException("The lock owner must not be null");
		}
		return owner;
	}

	/** One owner waiting for the lock: what the {@link Acquisition} protocol does for a lock. */
	private final class Waiter implements Contender<Long> {

		private final LockOwner owner;

		private final long leaseMillis;

		private final boolean withToken;

		Waiter(LockOwner owner, long leaseMillis, boolean withToken) {
			this.owner = owner;
			this.leaseMillis = leaseMillis;
			this.withToken = withToken;
		}

		@Override
		public CompletableFuture<Contender.Try<Long>> tryOnce(boolean willWait) {
			return attemptAsync(owner, leaseMillis, willWait, withToken);
		}

		@Override
		public String channel() {
			return layout.waitChannel(owner.id());
		}

		@Override
		public Supplier<LockWaiters> waiters() {
			return layout.waiters();
		}

		@Override
		public String description() {
			return acquireAction;
		}

		@Override
		public boolean oneWaiterPerRelease() {
			return layout.oneWaiterPerRelease();
		}

		@Override
		public boolean triesAgainAfterALostReply() {
			// A hold the lost try took is trimmed at the win (the try counted it as unknown).
			return true;
		}

		@Override
		public LockWaiters.@Nullable Successor successor() {
			if (!layout.handsOver()) {
				return null;
			}
			return new LockWaiters.Successor(owner.id(),
					(leaseMillis == WATCHDOG) ? renewal.leaseMillis() : leaseMillis, withToken);
		}

		@Override
		public Long handedOver(long token) {
			// A release by this client passed the lock: this owner holds it already (any hidden hold
			// is dropped on the connection before the owner's next command).
			held(owner.id(), leaseMillis);
			return token;
		}

		@Override
		public void waitBegins() {
			layout.waiterArrived(handOvers, owner.id());
		}

		@Override
		public CompletableFuture<?> waitEnds(boolean acquired) {
			layout.waiterLeft(handOvers, owner.id());
			// A waiter that did not get the lock leaves its place (a fair lock's queue), which
			// otherwise times out by itself.
			return acquired ? Contender.DONE : layout.abandon(engine, owner.id());
		}

		@Override
		public CompletableFuture<?> giveBack(Long token) {
			return unlockAsync(owner);
		}

		@Override
		public CompletableFuture<?> giveBackUnknown(Throwable failure) {
			if (!(RedisEngine.translate(failure, acquireAction) instanceof RedisUnavailableException)) {
				// Refused (a simple lock held by the asker): nothing was taken.
				return Contender.DONE;
			}
			return dropUnknownHold(owner, leaseMillis);
		}

	}

}
