package dev.warden.lock;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * An exclusive lock shared by every client of one Redis, with a lease: what every lock of Warden's
 * has in common. Whether the owner that holds it may acquire it again is the kind's:
 * a {@link DistributedReentrantLock} counts the holds, a {@link DistributedSimpleLock} refuses.
 * <p>
 * A hold belongs to a {@link LockOwner}. The {@link Lock} methods, and the ones named
 * {@code ...CurrentThread}, act for the calling thread; the methods that take a {@link LockOwner}
 * act for that owner from any thread.
 * <p>
 * Every hold has a lease: the key expires unless renewed, so a crashed client cannot keep a lock
 * forever. Acquired without a lease, a lock is held under the watchdog: its lease is the client's
 * watchdog timeout (30 seconds by default), renewed every third of that until the last unlock.
 * Acquired with a lease, the lock is released by Redis when the lease runs out, even if the owner
 * is still working: choose a lease longer than the work.
 * <p>
 * Waiting never spins: a waiter subscribes to the lock's release channel and retries when a
 * release is published, or when the holder's lease runs out, whichever comes first.
 *
 * <pre>{@code
 * DistributedMutex lock = warden.getSimpleLock("report:daily");
 * if (lock.tryLock(2, TimeUnit.SECONDS)) {
 *     try {
 *         // exclusive across every service on this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public interface DistributedMutex extends Lock {


	/** {@return the lock's name, which is also its Redis key} */
	String getName();

	/**
	 * Acquires the lock for the current thread, waiting as long as it takes, with a fixed lease
	 * and no watchdog.
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of {@code leaseTime}
	 */
	void lock(long leaseTime, TimeUnit unit);

	/**
	 * Acquires the lock for the current thread if it becomes free within the wait, with a fixed
	 * lease and no watchdog.
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of both times
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock for {@code owner}, held under the watchdog.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param unit the unit of {@code waitTime}
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	boolean tryLock(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock for {@code owner} with a fixed lease and no watchdog.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of both times
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock for the current thread, waiting as long as it takes, under the watchdog,
	 * and returns its fencing token.
	 * @return the fencing token of this acquisition
	 * @see #tryLockWithToken(LockOwner, long, long, TimeUnit)
	 */
	long lockWithToken();

	/**
	 * Acquires the lock for the current thread under the watchdog, returning its fencing token.
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param unit the unit of {@code waitTime}
	 * @return the fencing token, or empty when the lock was not acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 * @see #tryLockWithToken(LockOwner, long, long, TimeUnit)
	 */
	OptionalLong tryLockWithToken(long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock for {@code owner} under the watchdog, returning its fencing token.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param unit the unit of {@code waitTime}
	 * @return the fencing token, or empty when the lock was not acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 * @see #tryLockWithToken(LockOwner, long, long, TimeUnit)
	 */
	OptionalLong tryLockWithToken(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock for {@code owner} with a fixed lease, returning its fencing token.
	 * <p>
	 * An acquisition of a reentrant, fair, write or simple lock made by a {@code ...WithToken} method
	 * returns its hold's token: a new hold takes the next value of a counter kept in Redis (one per hash
	 * slot, shared by the names in it, never reset by releases or expiry), and a re-entry returns the
	 * token of the hold it re-enters. Tokens of one lock name strictly increase across holders and
	 * clients. A holder passes its token to the storage it writes, and the storage refuses writes
	 * with a token lower than the last one it saw
	 * ({@code UPDATE ... SET fence = ? WHERE id = ? AND fence < ?}), so a holder that lost the lock
	 * while paused cannot overwrite its successor's work. The other acquisitions ({@code lock()},
	 * {@code tryLock(...)}), which return no token, write nothing for one. Read locks hand out no
	 * token (0).
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of both times
	 * @return the fencing token, or empty when the lock was not acquired
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	OptionalLong tryLockWithToken(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException;

	/**
	 * Acquires the lock for {@code owner} without blocking a thread while waiting, held under the
	 * watchdog.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param unit the unit of {@code waitTime}
	 * @return completes with whether the lock was acquired, or fails with
	 * {@link dev.warden.RedisUnavailableException}; cancelling it stops the wait (a hold acquired
	 * in the meantime is released). It completes on a Redis I/O thread: continuations that block
	 * (on Warden, or on anything else) belong on an executor of their own
	 * ({@code thenApplyAsync(..., executor)})
	 */
	CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, TimeUnit unit);

	/**
	 * Acquires the lock for {@code owner} with a fixed lease, without blocking a thread while
	 * waiting.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of both times
	 * @return completes with whether the lock was acquired; cancelling it stops the wait
	 */
	CompletableFuture<Boolean> tryLockAsync(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit);

	/**
	 * Like {@link #tryLockAsync(LockOwner, long, TimeUnit)}, completing with the hold's fencing token
	 * (see {@link #tryLockWithToken(LockOwner, long, long, TimeUnit)}).
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param unit the unit of {@code waitTime}
	 * @return completes with the fencing token, or empty when the lock was not acquired; cancelling
	 * it stops the wait (a hold acquired in the meantime is released)
	 */
	CompletableFuture<OptionalLong> tryLockWithTokenAsync(LockOwner owner, long waitTime, TimeUnit unit);

	/**
	 * Like {@link #tryLockAsync(LockOwner, long, long, TimeUnit)}, completing with the hold's fencing
	 * token.
	 * @param owner the owner to acquire for
	 * @param waitTime how long to wait; {@code 0} tries once
	 * @param leaseTime how long the hold lasts unless released first; must be positive
	 * @param unit the unit of both times
	 * @return completes with the fencing token, or empty when the lock was not acquired
	 */
	CompletableFuture<OptionalLong> tryLockWithTokenAsync(LockOwner owner, long waitTime, long leaseTime,
			TimeUnit unit);

	/**
	 * Releases one hold of {@code owner}; the last one frees the lock and wakes waiters (a simple
	 * lock has one hold at most).
	 * @param owner the owner releasing
	 * @throws IllegalMonitorStateException if {@code owner} does not hold the lock
	 */
	void unlock(LockOwner owner);

	/**
	 * Releases one hold of {@code owner} without blocking.
	 * @param owner the owner releasing
	 * @return completes when Redis has applied the release; fails with
	 * {@link IllegalMonitorStateException} if {@code owner} does not hold the lock
	 */
	CompletableFuture<Void> unlockAsync(LockOwner owner);

	/**
	 * Ends {@code owner}'s hold, but leaves the lock held in Redis for {@code delay} more: its lease
	 * becomes {@code delay}, nothing renews it, and it expires then; until it does, nobody (this
	 * owner included) acquires it. For work that must not run again within a while, wherever it
	 * runs: {@code @DistributedLock(holdAtLeast = ...)} uses it. A reentrant owner's holds all end
	 * then. Waiters are told, so that they wait for the new lease rather than the one they last read.
	 * A zero delay releases at once, as {@link #unlockAsync(LockOwner)}.
	 * @param owner the owner releasing
	 * @param delay how long the lock stays held; zero or positive, at most 365 days
	 * @param unit the unit of {@code delay}
	 * @return completes when Redis has applied it; fails with {@link IllegalMonitorStateException}
	 * if {@code owner} does not hold the lock
	 */
	CompletableFuture<Void> unlockAfterAsync(LockOwner owner, long delay, TimeUnit unit);

	/**
	 * Deletes the lock whoever holds it and wakes waiters. The former holder's next unlock fails.
	 * @return whether the lock was held
	 */
	boolean forceUnlock();

	/** {@return whether any owner, of any client, holds the lock} */
	boolean isLocked();

	/** {@return whether the current thread holds the lock} */
	boolean isHeldByCurrentThread();

	/**
	 * {@return whether {@code owner} holds the lock}
	 * @param owner the owner asked about
	 */
	boolean isHeldBy(LockOwner owner);

	/**
	 * The lock's remaining lease in milliseconds: {@code -2} when the lock is free, {@code -1} when
	 * the key has no expiry (set by something other than Warden or Redisson).
	 * @return the remaining lease in milliseconds, or {@code -2} or {@code -1} as above
	 */
	long remainingTimeToLive();

	/**
	 * Not supported: a condition cannot be shared across processes.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

}
