package dev.warden.lock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.RedisUnavailableException;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog of one client: renews the lease of every lock held without an explicit lease,
 * at most a third of the watchdog timeout after the last time, on one shared scheduler.
 * <p>
 * One periodic sweep, every twelfth of the watchdog timeout, renews each hold whose last renewal
 * (or acquisition) is a quarter of the timeout old, so a hold is renewed between a quarter and a
 * third of the timeout after the last time. Taking and releasing a lock thus only add and remove
 * an entry; nothing is scheduled per lock.
 * <p>
 * A renewal is keyed by lock and owner. It runs from the owner's first watchdog acquisition until
 * the release that frees the lock, a force unlock, the discovery that the lock is no longer the
 * owner's, or a whole lease without a renewal that succeeded: each renewal gives up after the
 * command timeout, and the sweep reports a lease run out even while Redis stays silent. Stopping and sending are serialized on the renewal, and every command goes over
 * one connection, so a renewal stopped before a release is sent can never reach Redis after it:
 * a stopped renewal never refreshes the key again.
 * <p>
 * It also carries the client's {@link HandOvers} and {@link KnownHolds}, the other per-client
 * state of its locks.
 */
public final class LeaseRenewal implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewal.class);

	private final RedisEngine engine;

	private final ScheduledExecutorService scheduler;

	private final long leaseMillis;

	private final LockListener listener;

	private final Map<HoldKey, Renewal> renewals = new ConcurrentHashMap<>();

	private final HandOvers handOvers = new HandOvers();

	private final KnownHolds holds;

	private final ReplicaSync replicaSync;

	/** The most holds of one lock {@link #releaseAll()} gives back. */
	private static final int MAX_HOLDS_RELEASED = 1_000;

	private final long renewAfterNanos;

	private volatile @Nullable ScheduledFuture<?> sweep;

	// Guarded by this.
	private boolean closed;

	/**
	 * @param engine the client's engine, whose scheduler runs every renewal
	 * @param leaseMillis the watchdog timeout: each renewal extends the lease to this
	 * @param listener told when a lease is lost
	 */
	public LeaseRenewal(RedisEngine engine, long leaseMillis, LockListener listener) {
		this(engine, leaseMillis, listener, ReplicaSync.OFF);
	}

	/**
	 * @param engine the client's engine, whose scheduler runs every renewal
	 * @param leaseMillis the watchdog timeout: each renewal extends the lease to this
	 * @param listener told when a lease is lost
	 * @param replicaSync the fail-over check after each acquisition of this client's locks
	 */
	public LeaseRenewal(RedisEngine engine, long leaseMillis, LockListener listener, ReplicaSync replicaSync) {
		this.replicaSync = replicaSync;
		this.engine = engine;
		this.scheduler = engine.scheduler();
		this.leaseMillis = leaseMillis;
		this.listener = listener;
		this.renewAfterNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 4;
		this.holds = new KnownHolds(engine);
	}

	/** The client's fail-over check after acquisitions. */
	ReplicaSync replicaSync() {
		return replicaSync;
	}

	/** The lease a watchdog-held lock is acquired with and renewed to. */
	long leaseMillis() {
		return leaseMillis;
	}

	/** The client's count of its owners' holds, for those whose reply was lost. */
	KnownHolds holds() {
		return holds;
	}

	/** The client's bookkeeping of hand-overs to its own waiters. */
	HandOvers handOvers() {
		return handOvers;
	}

	/** Starts renewing the owner's holds of the lock, unless they are renewed already. */
	void start(LockLayout layout, String ownerId) {
		renewals.computeIfAbsent(key(layout, ownerId), key -> new Renewal(key, layout, ownerId));
		if (sweep == null) {
			startSweeping();
		}
	}

	private synchronized void startSweeping() {
		if (sweep == null && !closed) {
			long period = Math.max(1, leaseMillis / 12);
			sweep = scheduler.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
		}
	}

	private void sweep() {
		long now = System.nanoTime();
		for (Renewal renewal : renewals.values()) {
			try {
				if (renewal.expiredBy(now)) {
					renewal.lost(new RedisUnavailableException("No renewal of the lease of '" + renewal.lockName
							+ "' succeeded within " + leaseMillis + " ms"));
					continue;
				}
				renewal.renewIfDue(now);
			}
			catch (RuntimeException ex) {
				// Refused at once (a closed connection): like a failed renewal, tried again later.
				renewal.renewed(now, null, ex);
			}
		}
	}

	/** Stops renewing the owner's holds; any renewal not yet sent is never sent. */
	void stop(LockLayout layout, String ownerId) {
		Renewal renewal = renewals.remove(key(layout, ownerId));
		if (renewal != null) {
			renewal.cancel();
		}
	}

	/** Stops the renewals of every owner of the lock (after a force unlock). */
	void stopAll(String lockName) {
		holds.forgetAll(lockName);
		renewals.values().removeIf(renewal -> {
			if (renewal.lockName.equals(lockName)) {
				renewal.cancel();
				return true;
			}
			return false;
		});
	}

	/** How many holds are being renewed. */
	public int activeRenewals() {
		return renewals.size();
	}

	/**
	 * Releases every hold this watchdog renews, for a client that shuts down: other services get the
	 * locks at once instead of when the leases run out. Each owner's holds of a lock are released
	 * one by one until the lock is free of them; a release that fails leaves the hold to its lease.
	 * @return how many locks were released
	 */
	public int releaseAll() {
		List<Renewal> held = new ArrayList<>(renewals.values());
		int released = 0;
		for (Renewal renewal : held) {
			// A lock re-entered this often is not let go of any further: its lease ends it.
			for (int hold = 0; hold < MAX_HOLDS_RELEASED; hold++) {
				Long reply;
				try {
					reply = engine.await(renewal.layout.release(engine, renewal.ownerId),
							"release of '" + renewal.lockName + "' at shutdown");
				}
				catch (RuntimeException ex) {
					logger.warn("Could not release lock '{}' held by {} at shutdown; it expires with its lease",
							renewal.lockName, renewal.ownerId, ex);
					break;
				}
				if (reply == null || reply == 1L) {
					released += (reply != null) ? 1 : 0;
					break;
				}
			}
			stop(renewal.layout, renewal.ownerId);
		}
		if (released > 0) {
			logger.info("Released {} lock(s) still held at shutdown", released);
		}
		return released;
	}

	/** Stops every renewal; the locks expire when their current lease runs out. */
	@Override
	public void close() {
		synchronized (this) {
			closed = true;
			if (sweep != null) {
				sweep.cancel(false);
			}
		}
		renewals.values().removeIf(renewal -> {
			renewal.cancel();
			return true;
		});
	}

	private static HoldKey key(LockLayout layout, String ownerId) {
		// The hold field tells a read hold from a write hold of the same owner on the same lock.
		return new HoldKey(layout.holdField(ownerId), layout.name);
	}

	/** One owner's holds of one lock, of one kind. */
	private record HoldKey(String holdField, String lockName) {
	}

	private final class Renewal {

		private final HoldKey key;

		private final LockLayout layout;

		private final String lockName;

		private final String ownerId;

		// Guarded by this.
		private boolean cancelled;

		private boolean inFlight;

		/** When the last successful renewal (or the acquisition) was sent: the lease runs from then. */
		private volatile long lastRenewedNanos = System.nanoTime();

		private volatile long dueNanos = lastRenewedNanos + renewAfterNanos;

		Renewal(HoldKey key, LockLayout layout, String ownerId) {
			this.key = key;
			this.layout = layout;
			this.lockName = layout.name;
			this.ownerId = ownerId;
		}

		synchronized void cancel() {
			cancelled = true;
		}

		void renewIfDue(long now) {
			if (now - dueNanos < 0) {
				return;
			}
			synchronized (this) {
				if (cancelled || inFlight) {
					return;
				}
				inFlight = true;
				long sent = System.nanoTime();
				// Sent while holding the monitor: once cancel() has returned, nothing more is sent.
				// Bounded by the command timeout, so that a silent Redis fails it (and cancels it).
				layout.renew(engine, ownerId, leaseMillis)
					.orTimeout(engine.commandTimeout().toNanos(), TimeUnit.NANOSECONDS)
					.whenComplete((reply, failure) -> renewed(sent, reply, failure));
			}
		}

		/** Whether the lease has run out since the last renewal that succeeded. */
		boolean expiredBy(long now) {
			return now - lastRenewedNanos >= TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		}

		private void renewed(long sent, @Nullable Long reply, @Nullable Throwable failure) {
			long now = System.nanoTime();
			synchronized (this) {
				inFlight = false;
				if (cancelled) {
					return;
				}
				// Renewed or not, the next try comes after the same interval.
				dueNanos = now + renewAfterNanos;
			}
			if (failure == null && reply != null && reply == 1L) {
				lastRenewedNanos = sent;
				return;
			}
			if (failure == null) {
				lost(null);
				return;
			}
			long sinceRenewed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastRenewedNanos);
			if (sinceRenewed >= leaseMillis) {
				lost(failure);
				return;
			}
			logger.debug("Renewing the lease of lock '{}' for {} failed; retrying", lockName, ownerId, failure);
		}

		void lost(@Nullable Throwable failure) {
			if (!renewals.remove(key, this)) {
				return;
			}
			cancel();
			holds.forget(layout, ownerId);
			if (failure == null) {
				logger.warn("Lock '{}' is no longer held by {}: its lease expired or it was force-unlocked; "
						+ "renewal stopped", lockName, ownerId);
			}
			else {
				logger.warn("Lock '{}' held by {} is lost: its lease could not be renewed for {} ms", lockName,
						ownerId, leaseMillis, failure);
			}
			try {
				listener.onLeaseLost(lockName, new LockOwner(ownerId), failure);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener failed on the lost lease of '{}'", lockName, ex);
			}
		}

	}

}
