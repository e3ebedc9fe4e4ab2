package dev.warden.kotlin

import dev.warden.lock.annotation.OnLockFailure
import dev.warden.lock.interceptor.LockAnnotationValidator
import dev.warden.lock.spi.LockSet
import dev.warden.lock.spi.LockedCall
import dev.warden.lock.spi.LockedReturnTypeHandler
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method
import kotlin.coroutines.Continuation
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.emitAll
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOn
import kotlinx.coroutines.future.await
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.reactor.mono
import kotlinx.coroutines.withContext
import org.reactivestreams.Publisher
import org.springframework.core.KotlinDetector
import org.springframework.util.ReflectionUtils
import reactor.core.publisher.Mono

/**
 * Kotlin `suspend` functions under `@DistributedLock`: the locks are held for the whole body,
 * across its suspension points and dispatcher hops, and released when it returns, throws or has
 * finished being cancelled.
 *
 * - The locks belong to the call, not to a thread: coroutines interleaved on one thread exclude
 *   each other, and a locked `suspend` call nested in a locked one (in the same coroutine or its
 *   children) re-enters the locks that one holds, through the [LockedCoroutine] element of its
 *   context. Any other lock a nested call takes for an owner of its own: children of one locked call
 *   exclude each other on it.
 * - The wait suspends; no thread is blocked. Cancelling a waiting coroutine stops the wait and gives
 *   back whatever it acquired (a fair lock's queue place too), locks granted just as it was
 *   cancelled included. Cancelling a holder cancels the body and releases once the body has ended
 *   (its `finally` blocks run under the lock), or at once when the body had not started yet.
 * - The body resumes on the caller's dispatcher; a caller without one (or on
 *   `Dispatchers.Unconfined`) continues on [Dispatchers.IO] rather than on a Redis I/O thread.
 *
 * `THROW`, `SKIP` (`null`) and `FALLBACK` (to a `suspend` fallback) work as for plain methods, as do
 * minimum holds, fencing tokens ([currentLockTokens], and `LockContext` on the body's threads),
 * the lock listener and the meters. Spring hands the interceptor a `suspend` call as a `Mono`; this
 * handler returns one, which Spring's proxy awaits in the caller's coroutine.
 */
class CoroutineLockHandler : LockedReturnTypeHandler {

	override fun canHandleReturnType(returnType: Class<*>): Boolean = Flow::class.java.isAssignableFrom(returnType)

	override fun canHandle(method: Method): Boolean = if (KotlinDetector.isSuspendingFunction(method)) {
		!LockAnnotationValidator.suspendReturnsFlow(method)
	}
	else {
		canHandleReturnType(method.returnType)
	}

	override fun handle(call: LockedCall): Any? {
		if (!KotlinDetector.isSuspendingFunction(call.method())) {
			@Suppress("UNCHECKED_CAST")
			val body = call.proceed() as Flow<Any?>? ?: return null
			return lockedFlow(call, body)
		}
		val arguments = call.arguments()
		val caller = arguments.last() as Continuation<*>
		val context = caller.context.minusKey(Job)
		val dispatcher = offTheRedisThreads(context)
		// Started in the caller's thread, to send the acquisition at once; everything after it runs on
		// the body's dispatcher.
		return mono(context.minusKey(ContinuationInterceptor) + Dispatchers.Unconfined) {
			runLocked(call, arguments, context + dispatcher, dispatcher)
		}
	}

	private suspend fun runLocked(call: LockedCall, arguments: Array<Any?>, context: CoroutineContext,
			dispatcher: CoroutineContext): Any? {
		val enclosing = context[LockedCoroutine]
		val locks = lockSet(call, enclosing)
		val tokens = acquire(call, locks)
			?: return withContext(dispatcher) { whenNotAcquired(call, arguments, context, locks) }
		// Nothing suspends between the acquisition and this try: a cancellation that comes before the
		// body has started (while it is being dispatched) releases the locks like any other.
		val element = lockedCoroutine(enclosing, locks.owner(), locks.names(), tokens)
		val result = try {
			withContext(dispatcher) { runBody(call, arguments, context, element) }
		}
		catch (failure: Throwable) {
			if (failure is CancellationException) {
				// The body was cancelled with its caller: it holds the locks until it has ended.
				withContext(NonCancellable) { element.body?.join() }
			}
			releaseAfter(failure, locks)
		}
		withContext(NonCancellable + dispatcher) { release(call, locks) }
		return result
	}

	private suspend fun runBody(call: LockedCall, arguments: Array<Any?>, context: CoroutineContext,
			element: LockedCoroutine): Any? = if (call.lastAdvice()) {
		// Nothing else advises the call: the body runs in this coroutine, without Spring's bridge.
		withContext(element) { invokeDirectly(call, arguments) }
	}
	else {
		awaitResult(call.proceed(withContext(arguments, context + element)))
	}

	/** Calls the suspend function on the target with this coroutine's continuation, as compiled code does. */
	private suspend fun invokeDirectly(call: LockedCall, arguments: Array<Any?>): Any? {
		val method = call.method()
		ReflectionUtils.makeAccessible(method)
		return suspendCoroutineUninterceptedOrReturn { continuation ->
			val actual = arguments.copyOf()
			actual[actual.size - 1] = continuation
			try {
				method.invoke(call.target(), *actual)
			}
			catch (ex: InvocationTargetException) {
				throw ex.targetException
			}
		}
	}

	/** Each collection of [body] acquires the locks first and releases them once it has ended. */
	private fun lockedFlow(call: LockedCall, body: Flow<Any?>): Flow<Any?> = flow {
		val enclosing = currentCoroutineContext()[LockedCoroutine]
		val locks = lockSet(call, enclosing)
		val tokens = acquire(call, locks)
		if (tokens == null) {
			when (call.onFailure()) {
				OnLockFailure.THROW, null -> throw locks.failure()
				OnLockFailure.SKIP -> return@flow
				OnLockFailure.FALLBACK -> {
					@Suppress("UNCHECKED_CAST")
					val fallback = call.fallback(locks.failure()) as Flow<Any?>?
					fallback?.let { emitAll(it) }
					return@flow
				}
			}
		}
		try {
			// Upstream runs in a coroutine of its own with the element; emitAll returns once it has ended.
			val context = currentCoroutineContext()
			emitAll(body.flowOn(offTheRedisThreads(context) + lockedCoroutine(enclosing, locks.owner(), locks.names(), tokens)))
		}
		catch (failure: Throwable) {
			releaseAfter(failure, locks)
		}
		withContext(NonCancellable) { release(call, locks) }
	}

	/**
	 * The call's locks: re-entered with the owner of the enclosing call (in this coroutine or a parent)
	 * that holds one of them, else for an owner of the call's own, so that sibling coroutines of one
	 * locked call exclude each other on a lock it does not hold.
	 */
	private fun lockSet(call: LockedCall, enclosing: LockedCoroutine?): LockSet {
		val own = call.newLockSet()
		val holder = ownerFor(enclosing, own.names()) ?: return own
		return call.newLockSet(holder)
	}

	/** Gives the locks back after [failure] (a failed release kept as suppressed) and throws [failure]. */
	private suspend fun releaseAfter(failure: Throwable, locks: LockSet): Nothing {
		withContext(NonCancellable) {
			try {
				locks.releaseAsync().await()
			}
			catch (releaseFailure: Exception) {
				failure.addSuppressed(releaseFailure)
			}
		}
		throw failure
	}

	/**
	 * Acquires the call's locks: their tokens (empty without `fencingToken`), or `null` when not
	 * acquired. Locks won as the coroutine is cancelled are given back; those returned are the
	 * caller's to release, in a `try` it enters without suspending first.
	 */
	private suspend fun acquire(call: LockedCall, locks: LockSet): Map<String, Long>? = if (call.fencingToken()) {
		locks.acquireWithTokensAsync().awaitAcquisition { tokens -> if (tokens != null) locks.releaseAsync() else null }
	}
	else {
		val acquired = locks.acquireAsync().awaitAcquisition { won -> if (won) locks.releaseAsync() else null }
		if (acquired) emptyMap() else null
	}

	private suspend fun whenNotAcquired(call: LockedCall, arguments: Array<Any?>, context: CoroutineContext,
			locks: LockSet): Any? = when (call.onFailure()) {
		OnLockFailure.THROW, null -> throw locks.failure()
		OnLockFailure.SKIP -> null
		OnLockFailure.FALLBACK -> awaitResult(call.fallback(withContext(arguments, context), locks.failure()))
	}

	private suspend fun release(call: LockedCall, locks: LockSet) {
		try {
			locks.releaseAsync().await()
		}
		catch (lost: IllegalMonitorStateException) {
			call.leaseLost(locks, lost)?.let { throw it }
		}
	}

	private suspend fun awaitResult(result: Any?): Any? = when (result) {
		null -> null
		is Publisher<*> -> Mono.from(result).awaitSingleOrNull()
		else -> result
	}

	/** The call's arguments with its continuation replaced by one that only carries [context]. */
	private fun withContext(arguments: Array<Any?>, context: CoroutineContext): Array<Any?> {
		val copy = arguments.copyOf()
		copy[copy.size - 1] = ContextOnly(context)
		return copy
	}

	/**
	 * A continuation that is never resumed: Spring starts the body (and a fallback) as a coroutine
	 * of its own in the context of the continuation it is passed.
	 */
	private class ContextOnly(override val context: CoroutineContext) : Continuation<Any?> {

		override fun resumeWith(result: Result<Any?>) {
			throw IllegalStateException("Not resumed: the body runs in a coroutine of its own")
		}

	}

	private companion object {

		/**
		 * The dispatcher user code runs on: the caller's, or [Dispatchers.IO] when the caller has none
		 * (or `Dispatchers.Unconfined`), rather than a Redis I/O thread that completed a wait.
		 */
		private fun offTheRedisThreads(context: CoroutineContext): CoroutineContext {
			val dispatcher = context[ContinuationInterceptor]
			return if (dispatcher == null || dispatcher == Dispatchers.Unconfined) Dispatchers.IO else dispatcher
		}

	}

}
