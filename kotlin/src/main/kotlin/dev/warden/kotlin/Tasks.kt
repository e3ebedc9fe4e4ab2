package dev.warden.kotlin

import dev.warden.task.ConsumerOptions
import dev.warden.task.DelayedQueue
import dev.warden.task.Delivery
import dev.warden.task.TaskClaim
import dev.warden.task.TaskConsumer
import dev.warden.task.TaskHandler
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.job
import kotlinx.coroutines.runBlocking

/**
 * Consumes this queue with a `suspend` handler: each due task runs in a coroutine on its worker
 * thread, which it holds until the handler has ended (the queue's concurrency bounds suspended
 * handlers as running ones, and the task's claim is kept alive meanwhile). Returning completes the
 * task; throwing schedules another attempt after the backoff, until it becomes a dead letter. A
 * lost claim ([TaskClaim]) cancels the handler.
 *
 * ```
 * warden.getDelayedQueue("order-timeouts", String::class.java).consumeSuspending { task ->
 *     orders.closeIfUnpaid(task.payload())
 * }
 * ```
 */
fun <T : Any> DelayedQueue<T>.consumeSuspending(options: ConsumerOptions = ConsumerOptions.DEFAULTS,
		handler: suspend (Delivery<T>) -> Unit): TaskConsumer =
	consume(TaskHandler { delivery -> runSuspending { handler(delivery) } }, options)

/** Runs [block] on this thread until it has ended, cancelled when the current task's claim is lost. */
internal fun runSuspending(block: suspend () -> Unit) {
	val claim = TaskClaim.current()
	runBlocking {
		val job = coroutineContext.job
		claim?.onLost {
			job.cancel(CancellationException("The claim of task '${claim.id()}' of queue '${claim.queue()}' was lost"))
		}
		block()
	}
}
