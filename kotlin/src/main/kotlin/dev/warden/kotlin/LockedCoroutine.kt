package dev.warden.kotlin

import dev.warden.lock.LockOwner
import dev.warden.lock.annotation.LockContext
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.Job
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.currentCoroutineContext

/**
 * The coroutine-context element of a `suspend` function running under its `@DistributedLock` (or of
 * a `withLock` block): the owner its locks are held by, their fencing tokens when the annotation
 * asks for them, and every lock held by this call and the calls it runs in, with their owners.
 *
 * A locked call nested in it, in the same coroutine or in a child coroutine, re-enters those locks
 * with their holder's owner; any other lock it takes for an owner of its own, so that sibling
 * coroutines exclude each other on it (see [ownerFor]).
 *
 * While the body runs on a thread, its tokens are also [LockContext]'s, so Java code called from
 * the body reads them as it would under a plain method.
 */
class LockedCoroutine internal constructor(
	/** The owner of the call's locks. */
	val owner: LockOwner,
	/** The call's lock names and their fencing tokens; empty when the annotation does not ask for them. */
	val tokens: Map<String, Long>,
	/** The locks held by this call and the calls it runs in, by name, with the owner holding each. */
	internal val held: Map<String, LockOwner>,
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

	/** The locks held once a call nested in this one holds [names] for [owner] as well. */
	internal fun heldWith(names: Collection<String>, owner: LockOwner): Map<String, LockOwner> =
		held + names.associateWith { owner }

}

/**
 * The owner a locked call (or block) taking [names] uses inside [enclosing]: the owner of the
 * enclosing call that holds one of them, so that it re-enters; `null` when none of them is held
 * there, for an owner of the call's own. A call taking both held locks and others takes all of them
 * for the holder's owner, since a lock set has one owner.
 */
internal fun ownerFor(enclosing: LockedCoroutine?, names: Collection<String>): LockOwner? =
	enclosing?.let { element -> names.firstNotNullOfOrNull { element.held[it] } }

/** The element of a call holding [names] for [owner] with [tokens], nested in [enclosing] if any. */
internal fun lockedCoroutine(enclosing: LockedCoroutine?, owner: LockOwner, names: Collection<String>,
		tokens: Map<String, Long>): LockedCoroutine =
	LockedCoroutine(owner, tokens, enclosing?.heldWith(names, owner) ?: names.associateWith { owner })

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
