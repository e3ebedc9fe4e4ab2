package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.RedisEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release side of one lock: a release that frees the lock hands it, in the release script
 * itself, to a waiter of this client that sleeps on it when the kind allows it (the
 * {@link LockLayout#handOverCandidates candidates} are the layout's to choose), else frees it and
 * lets the script wake the waiters. Either way the owner's renewal stops: on a hand-over, before the
 * waiter's hold begins to be renewed, since the waiter may be the same owner.
 */
final class LockRelease {

	private static final Logger logger = LoggerFactory.getLogger(LockRelease.class);

	/** How soon a waiter whose hand-over failed tries again. */
	private static final long RETRY_AFTER_FAILED_HAND_OVER_MILLIS = 20;

	private final LockLayout layout;

	private final String name;

	private final RedisEngine engine;

	private final LeaseRenewal renewal;

	private final HandOvers handOvers;

	private final KnownHolds holds;

	private final String releaseAction;

	LockRelease(LockLayout layout, RedisEngine engine, LeaseRenewal renewal) {
		this.layout = layout;
		this.name = layout.name;
		this.engine = engine;
		this.renewal = renewal;
		this.handOvers = renewal.handOvers();
		this.holds = renewal.holds();
		this.releaseAction = "unlock of '" + name + "'";
	}

	/** What a release is, for messages: {@code unlock of 'orders'}. */
	String action() {
		return releaseAction;
	}

	/**
	 * Releases one hold of the owner: the last one frees the lock and wakes its waiters, or hands it
	 * straight to a waiter of this client.
	 * @param ownerId the releasing owner
	 * @return completes when Redis has applied it; fails with {@link IllegalMonitorStateException}
	 * when the owner held nothing
	 */
	CompletableFuture<Void> release(String ownerId) {
		int trimTo = holds.beforeRelease(layout, ownerId);
		if (trimTo > 0) {
			// Sent first on the same connection: the release below then ends the holds the owner knows of.
			dropHiddenHolds(holds, layout, ownerId, trimTo, renewal.leaseMillis());
		}
		// A hand-over is not followed by a replica check: none when one is asked for.
		LockWaiters localWaiters = renewal.replicaSync().required(layout.name) > 0 ? null
				: layout.handOverCandidates(engine, handOvers);
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
					holds.releaseUnknown(layout, ownerId, renewal.leaseMillis());
					throw RedisEngine.translate(failure, releaseAction);
				}
				if (released == null) {
					holds.forget(layout, ownerId);
					throw notHeld(ownerId);
				}
				if (released == 1L) {
					// On the reply's own thread, before any later reply (a renewal's) is handled.
					releasedPlainly(ownerId);
				}
				holds.released(layout, ownerId, released == 1L);
				return null;
			});
	}

	/**
	 * Ends the owner's hold, leaving the lock in Redis for {@code delayMillis} more: its lease is set
	 * to that, its renewal stops, and it then expires; nobody acquires it meanwhile.
	 * @param ownerId the releasing owner
	 * @param delayMillis how long the lock stays; 0 or less releases at once
	 * @return completes when Redis has applied it; fails with {@link IllegalMonitorStateException}
	 * when the owner held nothing
	 */
	CompletableFuture<Void> releaseAfter(String ownerId, long delayMillis) {
		if (delayMillis <= 0) {
			return release(ownerId);
		}
		return layout.renew(engine, ownerId, delayMillis).handle((renewed, failure) -> {
			renewal.stop(layout, ownerId);
			holds.forget(layout, ownerId);
			if (failure != null) {
				throw RedisEngine.translate(failure, releaseAction);
			}
			if (renewed == null || renewed != 1L) {
				throw notHeld(ownerId);
			}
			return null;
		}).thenCompose(kept -> {
			// Waiters asleep for the lease they last read try again, read the shorter one, and sleep
			// only that long.
			return engine.commands().publish(layout.channel, "0").toCompletableFuture().thenApply(receivers -> null);
		});
	}

	/** Releases one hold; if that frees the lock, it passes to {@code successor} in the same script. */
	private CompletableFuture<Void> handOver(String ownerId, LockWaiters waiters, LockWaiters.Sleeper successor) {
		return layout.handOver(engine, ownerId, successor.successor)
			.handle((reply, failure) -> {
				if (failure != null) {
					releasedPlainly(ownerId);
					holds.releaseUnknown(layout, ownerId, renewal.leaseMillis());
					// Whether the lock reached the successor is unknown. The failure is the releaser's:
					// the waiter tries again, and if the lock did reach it, its next hold re-enters
					// that one, which is then dropped.
					LockWaiters.Successor next = successor.successor;
					if (next != null) {
						holds.acquisitionUnknown(layout, next.ownerId(), next.leaseMillis());
					}
					// A moment later, not on the failing connection's own thread: a try sent from there
					// can go down with that connection, one sent once the client saw it close waits
					// for the reconnection.
					engine.scheduler().schedule(() -> successor.wakeUp.complete(null), RETRY_AFTER_FAILED_HAND_OVER_MILLIS,
							TimeUnit.MILLISECONDS);
					throw RedisEngine.translate(failure, releaseAction);
				}
				long outcome = (reply != null) ? reply : LockLayout.NOT_HELD;
				if (outcome > 0 || outcome == LockLayout.HANDED_OVER) {
					// The releaser's holds end before the waiter's begins: the waiter may be the same owner
					// (two acquisitions of one owner, one asleep), whose renewal must go on. Its wake-up
					// starts the renewal of its hold, so stopping the releaser's after it would stop that.
					holds.released(layout, ownerId, true);
					renewal.stop(layout, ownerId);
					layout.handedOver(handOvers);
					// It holds the lock already, with this token (0: it took none).
					successor.wakeUp.complete(Math.max(0, outcome));
					return null;
				}
				if (outcome == LockLayout.FREED) {
					// Freed, and the first waiter (someone else) was told.
					releasedPlainly(ownerId);
				}
				if (outcome == LockLayout.NOT_HELD) {
					holds.forget(layout, ownerId);
				}
				else {
					holds.released(layout, ownerId, outcome == LockLayout.FREED);
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

	/**
	 * Trims an owner's hold count in Redis to the count its client knows of, dropping the holds of
	 * acquisitions whose reply was lost; sent at once, ahead of whatever the owner sends next on the
	 * connection.
	 * @return completes when Redis has answered, or failed to
	 */
	static CompletableFuture<?> dropHiddenHolds(KnownHolds holds, LockLayout layout, String ownerId, int knownCount,
			long leaseMillis) {
		return holds.trim(layout, ownerId, knownCount).whenComplete((dropped, failure) -> {
			if (failure != null) {
				// Still unknown: tried again at the owner's next acquisition or release.
				holds.acquisitionUnknown(layout, ownerId, leaseMillis);
			}
			else if (dropped != null && dropped > 0) {
				logger.warn("Dropped {} hold(s) of lock '{}' by {} taken by acquisitions whose reply was lost "
						+ "(their callers saw a failure)", dropped, layout.name, ownerId);
			}
		});
	}

	private IllegalMonitorStateException notHeld(String ownerId) {
		return new IllegalMonitorStateException("Cannot unlock '" + name + "': not held by " + ownerId
				+ " (never acquired, lease expired, or force-unlocked)");
	}

	/**
	 * Deletes the lock whoever holds it, and stops every renewal of it.
	 * @return completes with whether it was held
	 */
	CompletableFuture<Boolean> forceRelease() {
		return layout.forceRelease(engine).thenApply(reply -> {
			renewal.stopAll(name);
			handOvers.releasedPlainly(name);
			return reply != null && reply == 1L;
		});
	}

}
