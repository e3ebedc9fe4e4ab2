package dev.warden.lock.redis;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog of one client: renews the lease of every lock held without an explicit lease,
 * every third of the watchdog timeout, on one shared scheduler.
 * <p>
 * One periodic sweep, every twelfth of the watchdog timeout, renews each hold whose last renewal
 * (or acquisition) is a quarter of the timeout old, so a hold is renewed between a quarter and a
 * third of the timeout after the last time. Taking and releasing a lock thus only add and remove
 * an entry; nothing is scheduled per lock.
 * <p>
 * A renewal is keyed by lock and owner. It runs from the owner's first watchdog acquisition until
 * the release that frees the lock, a force unlock, or the discovery that the lock is no longer
 * the owner's. Stopping and sending are serialized on the renewal, and every command goes over
 * one connection, so a renewal stopped before a release is sent can never reach Redis after it:
 * a stopped renewal never refreshes the key again.
 * <p>
 * It also counts, per lock, how many times in a row the client handed a lock straight to one of
 * its own waiters, so that every {@value #MAX_HAND_OVERS_IN_A_ROW}th release is published for the
 * waiters of other clients instead: they are never starved by one busy client.
 */
public final class LeaseRenewal implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewal.class);

	private final RedisEngine engine;

	private final ScheduledExecutorService scheduler;

	private final long leaseMillis;

	private final LockListener listener;

	/**
	 * How many times in a row a client hands a lock to one of its own waiters before it releases it
	 * plainly, with a message that wakes waiters elsewhere.
	 */
	static final int MAX_HAND_OVERS_IN_A_ROW = 16;

	private final Map<HoldKey, Renewal> renewals = new ConcurrentHashMap<>();

	// Only locks in a streak of hand-overs: every streak ends with a plain release.
	private final Map<String, Integer> handOversInARow = new ConcurrentHashMap<>();

	// Fair lock name -> this client's owners waiting for it, in the order they began to wait.
	private final Map<String, ArrayDeque<String>> fairWaiters = new ConcurrentHashMap<>();

	private final ReplicaSync replicaSync;

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
	}

	/** The client's fail-over check after acquisitions. */
	ReplicaSync replicaSync() {
		return replicaSync;
	}

	/** The lease a watchdog-held lock is acquired with and renewed to. */
	long leaseMillis() {
		return leaseMillis;
	}

	/** Whether the next release of the lock may be handed to a waiter of this client. */
	boolean mayHandOver(String lockName) {
		return handOversInARow.getOrDefault(lockName, 0) < MAX_HAND_OVERS_IN_A_ROW;
	}

	/** The lock was handed to a waiter of this client. */
	void handedOver(String lockName) {
		handOversInARow.merge(lockName, 1, Integer::sum);
	}

	/** The lock was released plainly: a new streak of hand-overs may begin. */
	void releasedPlainly(String lockName) {
		handOversInARow.remove(lockName);
	}

	/** An owner of this client begins to wait for a fair lock. */
	void fairWaiterArrived(String lockName, String ownerId) {
		fairWaiters.compute(lockName, (name, waiting) -> {
			ArrayDeque<String> queue = (waiting != null) ? waiting : new ArrayDeque<>();
			queue.add(ownerId);
			return queue;
		});
	}

	/** An owner of this client stopped waiting for a fair lock (acquired or gave up). */
	void fairWaiterLeft(String lockName, String ownerId) {
		fairWaiters.computeIfPresent(lockName, (name, waiting) -> {
			waiting.remove(ownerId);
			return waiting.isEmpty() ? null : waiting;
		});
	}

	/** The owner of this client that has waited longest for a fair lock, if any. */
	@Nullable String firstFairWaiter(String lockName) {
		String[] first = { null };
		fairWaiters.computeIfPresent(lockName, (name, waiting) -> {
			first[0] = waiting.peekFirst();
			return waiting;
		});
		return first[0];
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
				renewal.renewIfDue(now);
			}
			catch (RuntimeException ex) {
				// Refused at once (a closed connection): like a failed renewal, tried again later.
				renewal.renewed(null, ex);
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
		handOversInARow.remove(lockName);
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

		private long lastRenewedNanos = System.nanoTime();

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
				// Sent while holding the monitor: once cancel() has returned, nothing more is sent.
				layout.renew(engine, ownerId, leaseMillis).whenComplete(this::renewed);
			}
		}

		private void renewed(@Nullable Long reply, @Nullable Throwable failure) {
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
				lastRenewedNanos = now;
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

		private void lost(@Nullable Throwable failure) {
			if (!renewals.remove(key, this)) {
				return;
			}
			cancel();
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
