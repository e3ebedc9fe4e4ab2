package dev.warden.kotlin

import dev.warden.lock.DistributedMutex
import dev.warden.lock.DistributedSemaphore
import dev.warden.lock.LockAcquisitionException
import dev.warden.lock.LockFactory
import dev.warden.lock.LockOwner
import java.util.OptionalLong
import java.util.concurrent.TimeUnit
import kotlin.time.Duration
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext

/*
 * Suspending forms of the lock API: waits suspend instead of blocking a thread, holds belong to the
 * coroutine (its LockOwner travels in its context), and a cancelled wait gives back whatever it took,
 * a win that completes just as the coroutine is cancelled included.
 */

/**
 * The owner of the calling coroutine's holds: the one of the innermost `@DistributedLock` call or
 * [withLock] block it runs in, so that locks taken again there are re-entered, else a new owner.
 * For a lock that call may not hold, [coroutineOwner] with the lock's name is the one to use: with
 * this one, children of the call would share an owner on it and not exclude each other.
 */
suspend fun LockFactory.coroutineOwner(): LockOwner = currentCoroutineContext()[LockedCoroutine]?.owner ?: newOwner()

/**
 * The owner the calling coroutine takes the lock [name] for: the owner of the `@DistributedLock`
 * call or [withLock] block it runs in (in this coroutine or a parent) that holds [name], so that it
 * re-enters; else a new owner, so that coroutines (children of one locked call too) exclude each
 * other on it.
 */
suspend fun LockFactory.coroutineOwner(name: String): LockOwner =
	ownerFor(currentCoroutineContext()[LockedCoroutine], listOf(name)) ?: newOwner()

/**
 * Runs [block] holding the reentrant lock [name] for the calling coroutine ([coroutineOwner] of
 * [name]), and releases it when the block returns or throws (or has ended after being cancelled).
 *
 * ```
 * warden.withLock("stock:$sku", wait = 5.seconds) {
 *     val level = stock.read(sku)
 *     stock.write(sku, level - quantity)
 * }
 * ```
 * A lock taken again inside the block (by `withLock` or a `@DistributedLock` suspend function), in
 * this coroutine or its children, is re-entered; children taking another lock exclude each other.
 * @param wait how long to wait, suspending; [Duration.INFINITE] waits as long as it takes
 * @param lease a fixed lease, or `null` to have the watchdog renew the lock while the block runs
 * @throws LockAcquisitionException when the lock is not acquired within [wait]
 */
suspend fun <T> LockFactory.withLock(name: String, wait: Duration = Duration.INFINITE, lease: Duration? = null,
		block: suspend () -> T): T {
	// The lock's own name, the key a lock name prefix put in front of name, is what held locks are known by.
	val lock = getLock(name)
	return lock.withLock(coroutineOwner(lock.name), wait, lease, block)
}

/**
 * Runs [block] holding this lock for [owner], and releases it when the block returns or throws
 * (or has ended after being cancelled). The block runs with [owner] in its context, so locks taken
 * there for the coroutine ([coroutineOwner], `@DistributedLock` suspend functions) are re-entered.
 * @param wait how long to wait, suspending; [Duration.INFINITE] waits as long as it takes
 * @param lease a fixed lease, or `null` to have the watchdog renew the lock while the block runs
 * @throws LockAcquisitionException when the lock is not acquired within [wait]
 */
suspend fun <T> DistributedMutex.withLock(owner: LockOwner, wait: Duration = Duration.INFINITE,
		lease: Duration? = null, block: suspend () -> T): T {
	val token = acquire(owner, wait, lease) ?: throw LockAcquisitionException(listOf(name), waitMillis(wait))
	return holding(owner, token, block)
}

/**
 * Like [withLock], but returns `null` instead of throwing when the lock is not acquired within
 * [wait] (by default, when it is busy now).
 */
suspend fun <T> DistributedMutex.tryWithLock(owner: LockOwner, wait: Duration = Duration.ZERO,
		lease: Duration? = null, block: suspend () -> T): T? {
	val token = acquire(owner, wait, lease) ?: return null
	return holding(owner, token, block)
}

/**
 * The hold's fencing token (0 for a read lock), or `null` when not acquired. A hold won as the
 * coroutine is cancelled is given back; one returned is released by [holding], which the callers
 * enter without suspending in between.
 */
private suspend fun DistributedMutex.acquire(owner: LockOwner, wait: Duration, lease: Duration?): Long? {
	val waitNanos = if (wait == Duration.INFINITE) Long.MAX_VALUE else wait.inWholeNanoseconds
	val attempt = if (lease == null) {
		tryLockWithTokenAsync(owner, waitNanos, TimeUnit.NANOSECONDS)
	}
	else {
		tryLockWithTokenAsync(owner, waitNanos, lease.inWholeNanoseconds, TimeUnit.NANOSECONDS)
	}
	val token: OptionalLong = attempt.awaitAcquisition { won -> if (won.isPresent) unlockAsync(owner) else null }
	return if (token.isPresent) token.asLong else null
}

private suspend fun <T> DistributedMutex.holding(owner: LockOwner, token: Long, block: suspend () -> T): T {
	try {
		val enclosing = currentCoroutineContext()[LockedCoroutine]
		return withContext(lockedCoroutine(enclosing, owner, listOf(name), mapOf(name to token))) { block() }
	}
	finally {
		withContext(NonCancellable) { unlockAsync(owner).await() }
	}
}

/**
 * Runs [block] holding [permits] of this semaphore's permits, and returns them when it returns or
 * throws.
 * @param wait how long to wait, suspending; [Duration.INFINITE] waits as long as it takes
 * @throws LockAcquisitionException when the permits are not taken within [wait]
 */
suspend fun <T> DistributedSemaphore.withPermit(permits: Int = 1, wait: Duration = Duration.INFINITE,
		block: suspend () -> T): T {
	val waitNanos = if (wait == Duration.INFINITE) Long.MAX_VALUE else wait.inWholeNanoseconds
	val taken = tryAcquireAsync(permits, waitNanos, TimeUnit.NANOSECONDS)
		.awaitAcquisition { won -> if (won) releaseAsync(permits) else null }
	if (!taken) {
		throw LockAcquisitionException(listOf(name), waitMillis(wait))
	}
	try {
		return block()
	}
	finally {
		withContext(NonCancellable) { releaseAsync(permits).await() }
	}
}

private fun waitMillis(wait: Duration): Long = if (wait == Duration.INFINITE) Long.MAX_VALUE else wait.inWholeMilliseconds
