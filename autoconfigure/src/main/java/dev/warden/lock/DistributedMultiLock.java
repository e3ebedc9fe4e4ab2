package dev.warden.lock;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * Several {@link DistributedMutex}es taken as one: all or nothing. They are acquired in the
 * order of their names, so two multi-locks over overlapping sets can never deadlock each other;
 * when one cannot be had within the (shared) wait, those already taken are released.
 *
 * <pre>{@code
 * DistributedMultiLock both = warden.getMultiLock(warden.getLock("account:1"), warden.getLock("account:2"));
 * if (both.tryLock(2, 30, TimeUnit.SECONDS)) {
 *     try { transfer(); } finally { both.unlock(); }
 * }
 * }</pre>
 */
public interface DistributedMultiLock extends Lock {

	/** {@return the locks, in acquisition order} */
	List<DistributedMutex> getLocks();

	/**
	 * Acquires all locks for the current thread within one wait, each with a fixed lease.
	 * @param waitTime the wait shared by all locks; {@code 0} tries each once
	 * @param leaseTime each hold's lease; must be positive
	 * @param unit the unit of both times
	 * @return whether all were acquired (none is held otherwise)
	 * @throws InterruptedException when the thread is interrupted while it waits (none is held then)
	 */
	boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires all locks for {@code owner} within one wait, under the watchdog, taking no fencing
	 * token.
	 * @param owner the owner
	 * @param waitTime the wait shared by all locks; {@code 0} tries each once
	 * @param unit the unit of {@code waitTime}
	 * @return whether all were acquired (none is held otherwise)
	 * @throws InterruptedException when the thread is interrupted while it waits (none is held then)
	 */
	boolean tryLock(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires all locks for {@code owner} within one wait, each with a fixed lease, taking no
	 * fencing token.
	 * @param owner the owner
	 * @param waitTime the wait shared by all locks; {@code 0} tries each once
	 * @param leaseTime each hold's lease; must be positive
	 * @param unit the unit of both times
	 * @return whether all were acquired (none is held otherwise)
	 * @throws InterruptedException when the thread is interrupted while it waits (none is held then)
	 */
	boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires all locks for {@code owner} within one wait, under the watchdog, and returns their
	 * fencing tokens.
	 * @param owner the owner
	 * @param waitTime the wait shared by all locks; {@code 0} tries each once
	 * @param unit the unit of {@code waitTime}
	 * @return each lock's name and fencing token, or {@code null} when not all were acquired
	 * @throws InterruptedException when the thread is interrupted while it waits (none is held then)
	 */
	@Nullable Map<String, Long> tryLockWithTokens(LockOwner owner, long waitTime, TimeUnit unit)
			throws InterruptedException;

	/**
	 * Acquires all locks for {@code owner} within one wait, each with a fixed lease, and returns
	 * their fencing tokens.
	 * @param owner the owner
	 * @param waitTime the wait shared by all locks; {@code 0} tries each once
	 * @param leaseTime each hold's lease; must be positive
	 * @param unit the unit of both times
	 * @return each lock's name and fencing token, or {@code null} when not all were acquired
	 * @throws InterruptedException when the thread is interrupted while it waits (none is held then)
	 */
	@Nullable Map<String, Long> tryLockWithTokens(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException;

	/**
	 * Releases one hold of every lock, in reverse order. Every lock is released even when one
	 * fails; the first failure is thrown afterwards.
	 * @param owner the owner
	 * @throws IllegalMonitorStateException when a lock was not held by {@code owner}
	 */
	void unlock(LockOwner owner);

}
