package dev.warden.kotlin

import dev.warden.lock.LockOwner
import dev.warden.lock.annotation.LockContext
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.Job
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.currentCoroutineContext

/**
 * The coroutine-context element of a `suspend` function running under its `@DistributedLock`: the
 * owner its locks are held by, which a nested locked call in the same coroutine re-enters, and
 * their fencing tokens when the annotation asks for them.
 *
 * While the body runs on a thread, its tokens are also [LockContext]'s, so Java code called from
 * the body reads them as it would under a plain method.
 */
class LockedCoroutine internal constructor(
	/** The owner of the call's locks. */
	val owner: LockOwner,
	/** The call's lock names and their fencing tokens; empty when the annotation does not ask for them. */
	val tokens: Map<String, Long>,
) : AbstractCoroutineContextElement(Key), ThreadContextElement<LockContext.Scope?> {

	/** The key of the element in a coroutine context. */
	companion object Key : CoroutineContext.Key<LockedCoroutine>

	/** The coroutine running the body, seen when it first runs: its end ends the call. */
	@Volatile
	internal var body: Job? = null
		private set

	override fun updateThreadContext(context: CoroutineContext): LockContext.Scope? {
		if (body == null) {
			body = context[Job]
		}
		return if (tokens.isEmpty()) null else LockContext.open(tokens)
	}

	override fun restoreThreadContext(context: CoroutineContext, oldState: LockContext.Scope?) {
		oldState?.close()
	}

	override fun toString(): String = "LockedCoroutine($owner)"

}

/**
 * The fencing tokens of the locks held by the innermost `@DistributedLock` `suspend` function
 * this coroutine runs in, by lock name; empty outside one, or when its annotation does not ask for
 * them (`fencingToken = true`).
 */
suspend fun currentLockTokens(): Map<String, Long> = currentCoroutineContext()[LockedCoroutine]?.tokens ?: emptyMap()

/**
 * The fencing token of the one lock held by the innermost `@DistributedLock` `suspend` function
 * this coroutine runs in; `null` outside one, without `fencingToken = true`, or when that call
 * holds several locks (see [currentLockTokens]).
 */
suspend fun currentLockToken(): Long? = currentLockTokens().values.singleOrNull()
