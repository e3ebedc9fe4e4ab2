package dev.warden.benchmark

import dev.warden.Warden
import dev.warden.benchmark.Report.Metric
import dev.warden.expression.MethodExpressions
import dev.warden.kotlin.CoroutineLockHandler
import dev.warden.lock.LockListener
import dev.warden.lock.annotation.DistributedLock
import dev.warden.lock.interceptor.CompletionStageHandler
import dev.warden.lock.interceptor.LockAspectSupport
import dev.warden.lock.interceptor.LockCalls
import dev.warden.lock.interceptor.LockInterceptor
import dev.warden.lock.interceptor.LockOperationSource
import dev.warden.test.redis.RedisNode
import io.lettuce.core.RedisClient
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import org.springframework.aop.framework.ProxyFactory

/**
 * A locked `suspend fun` called by 64 coroutines on `Dispatchers.Default` (as many threads as
 * cores) against the same method, not suspending, called by 64 threads: on own keys and on one key,
 * in slices that alternate on one client. The columns are [COROUTINES] and [THREADS].
 */
internal class CoroutineScenarios(private val redis: RedisNode, runMillis: Long) {

	companion object {

		const val COROUTINES = "64 coroutines"

		const val THREADS = "64 threads"

		private const val CALLERS = 64

		private const val SLICES = 8

	}

	private val runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis)

	fun lockedCalls(report: Report) {
		val client = RedisClient.create(redis.uri())
		try {
			Warden.builder(client).build().use { warden ->
				val stock = proxy(warden)
				for (oneKey in listOf(false, true)) {
					val scenario = "@DistributedLock, $CALLERS callers, " + (if (oneKey) "one key" else "own keys")
					Alternation.measure(report, Metric("$scenario: calls/s", true),
						Metric("$scenario: client CPU per call (µs)", false), runNanos, SLICES,
						COROUTINES, { nanos -> coroutineCalls(stock, nanos, oneKey) },
						THREADS, { nanos -> Alternation.calls({ caller -> stock.reserveOnThread(key(caller, oneKey)) },
							CALLERS, nanos) })
				}
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2))
			redis.call("FLUSHALL")
		}
	}

	private fun coroutineCalls(stock: Stock, nanos: Long, oneKey: Boolean): Long = runBlocking(Dispatchers.Default) {
		val deadline = System.nanoTime() + nanos
		(0 until CALLERS).map { caller ->
			async {
				var count = 0L
				while (System.nanoTime() - deadline < 0) {
					stock.reserve(key(caller, oneKey))
					count++
				}
				count
			}
		}.awaitAll().sum()
	}

	private fun key(caller: Int, oneKey: Boolean) = if (oneKey) "shared" else "own-$caller"

	private fun proxy(warden: Warden): Stock {
		val operations = LockOperationSource(MethodExpressions(null), "bench:coroutines:", 10_000)
		val support = LockAspectSupport(warden, LockListener.NONE, operations,
			listOf(CompletionStageHandler(), CoroutineLockHandler()), true, LockCalls())
		val factory = ProxyFactory(Stock())
		factory.isProxyTargetClass = true
		factory.addAdvice(LockInterceptor { support })
		return factory.proxy as Stock
	}

	/** The annotated bean: the same empty method under a lock on its argument, suspending and not. */
	open class Stock {

		@DistributedLock(name = "stock", key = ["#p0"])
		open suspend fun reserve(sku: String) {
		}

		@DistributedLock(name = "stock", key = ["#p0"])
		open fun reserveOnThread(sku: String) {
		}

	}

}
