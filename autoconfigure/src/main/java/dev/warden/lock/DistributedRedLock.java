package dev.warden.lock;

import java.util.concurrent.TimeUnit;

/**
 * A lock held on a majority of independent Redis nodes (the RedLock algorithm): it stays safe
 * while a minority of the nodes is down or has lost its data.
 * <p>
 * Each attempt tries every node once with the lease; it succeeds when a majority ({@code N/2 + 1})
 * granted the lock and time remains of the lease after the attempt and an allowance for clock
 * drift (validity = lease − elapsed − drift). Otherwise every node is released and, while the wait
 * lasts, the attempt is repeated after a short random pause. Holds always have an explicit lease.
 * <p>
 * What it does not protect against: it relies on the nodes' clocks advancing at about the same
 * rate, and a holder paused past its validity (a GC pause, a stopped VM) may still believe it
 * holds the lock while another client acquires it; a node restarted without persistence forgets
 * the locks it granted. Where that matters, use the fencing token of a single-node lock and let
 * the storage reject stale writers.
 */
public interface DistributedRedLock {

	/** {@return the lock's name, its key on every node} */
	String getName();

	/** {@return how many nodes must grant the lock} */
	int quorum();

	/**
	 * Acquires the lock on a majority of the nodes for the current thread.
	 * @param waitTime how long to keep trying; 0 tries once
	 * @param leaseTime the lease; positive
	 * @param unit the unit of both times
	 * @return whether it was acquired (with some validity left)
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock on a majority of the nodes for {@code owner}.
	 * @return whether it was acquired (with some validity left)
	 * @param owner the owner
	 * @param waitTime how long to keep trying; 0 tries once
	 * @param leaseTime the lease; positive
	 * @param unit the unit of both times
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/** Releases the current thread's hold on every node. */
	void unlock();

	/**
	 * Releases {@code owner}'s hold on every node that still has it.
	 * @throws IllegalMonitorStateException when no node had it
	 * @param owner the owner whose hold to release
	 */
	void unlock(LockOwner owner);

}
