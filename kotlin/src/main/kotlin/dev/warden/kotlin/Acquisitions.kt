package dev.warden.kotlin

import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.future.await
import org.slf4j.LoggerFactory

private val logger = LoggerFactory.getLogger("dev.warden.kotlin.Acquisitions")

/**
 * Awaits an acquisition (of locks, of permits) without ever dropping what it won.
 *
 * While the coroutine is active this is [await]. When the coroutine is cancelled first, the future
 * is cancelled, which stops a wait still under way (the acquisition then gives back a win that
 * comes too late itself); and an acquisition that succeeds anyway (it completed just as the
 * coroutine was cancelled, before the coroutine resumed, or it completes later because it could no
 * longer be cancelled) is handed to [giveBack], since nobody is left to release it.
 * @param giveBack releases what a successful outcome holds: it is passed every successful outcome
 * (`false` and empty ones included) and returns the release, or `null` when the outcome holds nothing
 */
internal suspend fun <T> CompletableFuture<T>.awaitAcquisition(giveBack: (T) -> CompletionStage<*>?): T {
	try {
		return await()
	}
	catch (cancelled: CancellationException) {
		// Whether the future completed before the cancellation or completes after it, a win is given back.
		whenComplete { outcome, failure ->
			if (failure == null) {
				giveBackQuietly(outcome, giveBack)
			}
		}
		throw cancelled
	}
}

private fun <T> giveBackQuietly(outcome: T, giveBack: (T) -> CompletionStage<*>?) {
	val released = try {
		giveBack(outcome)
	}
	catch (ex: RuntimeException) {
		CompletableFuture.failedFuture<Any?>(ex)
	}
	released?.whenComplete { _, failure ->
		if (failure != null) {
			logger.warn("Could not give back an acquisition whose coroutine was cancelled; it expires with its lease",
				failure)
		}
	}
}
