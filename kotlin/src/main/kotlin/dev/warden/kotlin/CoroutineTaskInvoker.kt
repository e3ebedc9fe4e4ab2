package dev.warden.kotlin

import dev.warden.task.interceptor.SuspendingTaskInvoker
import java.lang.reflect.Method
import kotlin.reflect.full.callSuspend
import kotlin.reflect.jvm.isAccessible
import kotlin.reflect.jvm.kotlinFunction

/**
 * Runs `suspend` functions as the handlers of `@DelayedTask` and `@RecurringTask`: in a coroutine
 * on the task's worker thread, which it holds until the function has ended (the queue's
 * concurrency bounds suspended handlers as it bounds running ones, and the claim is kept alive
 * meanwhile as for any running handler). A lost claim cancels the coroutine.
 *
 * The function is called through the bean, so its other advice (`@Transactional`,
 * `@DistributedLock`) applies; it resumes on the worker thread after each suspension unless it
 * moves elsewhere itself (`withContext(Dispatchers.IO)`).
 */
internal class CoroutineTaskInvoker : SuspendingTaskInvoker {

	override fun invoke(bean: Any, function: Method, arguments: Array<Any?>) {
		val callable = function.kotlinFunction
			?: throw IllegalStateException("Kotlin's reflection does not know $function as a function")
		callable.isAccessible = true
		runSuspending { callable.callSuspend(bean, *arguments) }
	}

}
