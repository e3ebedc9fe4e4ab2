package dev.warden.kotlin

import dev.warden.InvalidAnnotationException
import dev.warden.Warden
import dev.warden.lock.LockAcquisitionException
import dev.warden.lock.LockLostException
import dev.warden.lock.annotation.DistributedLock
import dev.warden.lock.annotation.LockContext
import dev.warden.lock.annotation.LockType
import dev.warden.lock.annotation.OnLockFailure
import dev.warden.lock.interceptor.LockCalls
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.stereotype.Component

/**
 * `suspend` functions under `@DistributedLock`, called as Kotlin services call them: through the
 * bean, from coroutines on one thread and on a pool, in two application instances.
 */
open class SuspendLockTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	private val shared = SharedCounts()

	/** The application the tests run in; a subclass adds advice. */
	protected open fun application(): ApplicationContextRunner = kotlinApplication(redis.node())

	private val runner = application()
		.withBean(SharedCounts::class.java, { shared })
		.withBean(Stock::class.java)
		.withBean(Orders::class.java)
		.withBean(Holder::class.java)

	private fun exists(key: String): Boolean = redis.node().call("EXISTS", key) == 1L

	@Test
	fun coroutinesOfTwoInstancesOnOneKeyLoseNoUpdate() {
		runner.run { first ->
			runner.run { second ->
				runBlocking(Dispatchers.Default) {
					(0 until 40).map { i ->
						val stock = (if (i % 2 == 0) first else second).getBean(Stock::class.java)
						async { stock.increment("sku-1") }
					}.awaitAll()
				}
			}
		}
		assertThat(shared.values["sku-1"]).isEqualTo(40)
	}

	@Test
	fun coroutinesInterleavedOnOneThreadExcludeEachOther() {
		runner.run { context ->
			val stock = context.getBean(Stock::class.java)
			runBlocking {
				(0 until 40).map { async { stock.increment("sku-2") } }.awaitAll()
			}
		}
		assertThat(shared.values["sku-2"]).isEqualTo(40)
	}

	@Test
	fun theLockIsHeldWhileTheBodyIsSuspendedAndReleasedWhenItReturns() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			val other = context.getBean(Warden::class.java)
			runBlocking(Dispatchers.Default) {
				val entered = CompletableDeferred<Unit>()
				val proceed = CompletableDeferred<Unit>()
				val call = async { holder.hold("h-1", entered, proceed) }
				entered.await()
				assertThat(exists("warden:lock:held:h-1")).`as`("held while suspended").isTrue()
				assertThat(other.getLock("warden:lock:held:h-1").tryLock(other.newOwner(), 0, TimeUnit.SECONDS))
					.`as`("another owner's attempt").isFalse()
				assertThat(context.getBean(LockCalls::class.java).holds().map { it.names() })
					.containsExactly(listOf("warden:lock:held:h-1"))
				proceed.complete(Unit)
				assertThat(call.await()).isEqualTo("done")
				assertThat(exists("warden:lock:held:h-1")).`as`("released when it returned").isFalse()
			}
		}
	}

	@Test
	fun aThrowingBodyReleasesItsLock() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			assertThatThrownBy { runBlocking { holder.fail("h-2") } }.hasMessage("failed under the lock")
			assertThat(exists("warden:lock:held:h-2")).isFalse()
		}
	}

	@Test
	fun aNestedLockedCallInTheSameCoroutineReEnters() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			runBlocking(Dispatchers.Default) {
				assertThat(withTimeout(30_000) { orders.reserve("sku-3") }).isEqualTo("reserved sku-3")
			}
			assertThat(exists("warden:lock:stock:sku-3")).isFalse()
		}
	}

	@Test
	fun anotherCoroutineDoesNotReEnterACallItDidNotMake() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			val stock = context.getBean(Stock::class.java)
			runBlocking(Dispatchers.Default) {
				val entered = CompletableDeferred<Unit>()
				val proceed = CompletableDeferred<Unit>()
				val call = async { holder.holdStock("sku-4", entered, proceed) }
				entered.await()
				assertThatThrownBy { runBlocking { stock.reserveAgain("sku-4") } }
					.isInstanceOf(LockAcquisitionException::class.java)
				proceed.complete(Unit)
				call.await()
			}
		}
	}

	@Test
	fun cancellingAHolderReleasesItsLockOnceTheBodyHasEnded() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			runBlocking(Dispatchers.Default) {
				val entered = CompletableDeferred<Unit>()
				val call = launch { holder.holdUntilCancelled("h-5", entered) }
				entered.await()
				call.cancel()
				eventually("the lock released") { !exists("warden:lock:held:h-5") }
			}
			assertThat(holder.heldInFinally).`as`("the body's finally ran under the lock").containsExactly(true)
		}
	}

	@Test
	fun cancellingAWaiterLeavesNothingHeldOrQueuedOnAFairLock() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val holder = context.getBean(Holder::class.java)
			val lock = warden.getFairLock("warden:lock:fair:f-1")
			val owner = warden.newOwner()
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue()
			runBlocking(Dispatchers.Default) {
				val waiters = (0 until 5).map { launch { holder.fair("f-1") } }
				eventually("five waiters queued") {
					redis.node().call("LLEN", "redisson_lock_queue:{warden:lock:fair:f-1}") == 5L
				}
				waiters.forEach { it.cancel() }
				waiters.forEach { it.join() }
				eventually("the queue emptied") {
					redis.node().call("LLEN", "redisson_lock_queue:{warden:lock:fair:f-1}") == 0L
						&& redis.node().call("ZCARD", "redisson_lock_timeout:{warden:lock:fair:f-1}") == 0L
				}
			}
			lock.unlock(owner)
			assertThat(exists("warden:lock:fair:f-1")).isFalse()
			assertThat(holder.fairRuns.get()).`as`("cancelled waiters never ran").isZero()
			assertThat(context.getBean(LockCalls::class.java).waiting()).isZero()
		}
	}

	@Test
	fun waitingSuspendsAndBlocksNoThread() {
		val single = Executors.newSingleThreadExecutor().asCoroutineDispatcher()
		try {
			runner.run { context ->
				val warden = context.getBean(Warden::class.java)
				val holder = context.getBean(Holder::class.java)
				val owner = warden.newOwner()
				assertThat(warden.getLock("warden:lock:held:h-6").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue()
				runBlocking {
					val waiters = (0 until 20).map { launch(single) { holder.waitFor("h-6") } }
					eventually("twenty calls waiting") { context.getBean(LockCalls::class.java).waiting() == 20 }
					// The one thread the waiters were started on is free to run something else.
					assertThat(withTimeout(10_000) { withContext(single) { "free" } }).isEqualTo("free")
					warden.getLock("warden:lock:held:h-6").unlock(owner)
					withTimeout(60_000) { waiters.forEach { it.join() } }
				}
				assertThat(holder.waitedRuns.get()).isEqualTo(20)
			}
		}
		finally {
			single.close()
		}
	}

	@Test
	fun skipReturnsNullAndFallbackCallsTheSuspendFallback() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val holder = context.getBean(Holder::class.java)
			val owner = warden.newOwner()
			assertThat(warden.getLock("warden:lock:busy:b-1").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue()
			runBlocking {
				assertThat(holder.skipWhenBusy("b-1")).isNull()
				assertThat(holder.fallBackWhenBusy("b-1")).isEqualTo("fallback for [warden:lock:busy:b-1]")
				assertThatThrownBy { runBlocking { holder.throwWhenBusy("b-1") } }
					.isInstanceOf(LockAcquisitionException::class.java)
			}
			warden.getLock("warden:lock:busy:b-1").unlock(owner)
			runBlocking {
				assertThat(holder.fallBackWhenBusy("b-1")).isEqualTo("worked")
			}
		}
	}

	@Test
	fun fencingTokensAreReadableFromTheCoroutineAndFromJavaOnItsThreads() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			runBlocking(Dispatchers.Default) {
				val first = holder.fenced("t-1")
				val second = holder.fenced("t-1")
				assertThat(first.first).isNotNull().isEqualTo(first.second)
				assertThat(second.first).isGreaterThan(first.first)
			}
		}
	}

	@Test
	fun aMinimumHoldOutlivesTheCall() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			runBlocking { holder.report("daily") }
			val ttl = redis.node().call("PTTL", "warden:lock:report:daily") as Long
			assertThat(ttl).`as`("left to expire after the minimum hold").isBetween(1L, 60_000L)
		}
	}

	@Test
	fun aLeaseLostWhileTheBodyWasSuspendedFailsTheCall() {
		runner.run { context ->
			val holder = context.getBean(Holder::class.java)
			assertThatThrownBy { runBlocking { holder.outlive("l-1") } }.isInstanceOf(LockLostException::class.java)
				.hasMessageContaining("warden:lock:short:l-1")
		}
	}

	@Test
	fun withoutTheKotlinSupportASuspendFunctionFailsStartupNamingIt() {
		kotlinApplication(redis.node(), withKotlinSupport = false).withBean(Stock::class.java)
			.withBean(SharedCounts::class.java, { shared })
			.run { context ->
				assertThat(context).hasFailed()
				assertThat(invalidAnnotation(context.startupFailure).message)
					.contains("suspend dev.warden.kotlin.SuspendLockTests\$Stock.increment(String)")
					.contains("warden-kotlin")
			}
	}

	@Test
	fun aSuspendFunctionReturningAFlowFailsStartup() {
		runner.withBean(SuspendFlowService::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(invalidAnnotation(context.startupFailure).message)
				.contains("SuspendFlowService.items(String): a suspend function returning a Flow is not supported")
		}
	}

	@Test
	fun eachCollectionOfALockedFlowHoldsTheLockUntilItEnds() {
		runner.withBean(FlowService::class.java).run { context ->
			val flows = context.getBean(FlowService::class.java)
			runBlocking(Dispatchers.Default) {
				val items = flows.items("fl-1")
				assertThat(exists("warden:lock:flow:fl-1")).`as`("nothing held before collection").isFalse()
				val seen = mutableListOf<Int>()
				items.collect { item ->
					seen.add(item)
					assertThat(exists("warden:lock:flow:fl-1")).`as`("held while collecting").isTrue()
				}
				assertThat(seen).containsExactly(1, 2, 3)
				assertThat(exists("warden:lock:flow:fl-1")).`as`("released when it ended").isFalse()
				// A collection cut short cancels the upstream, which then releases.
				assertThat(items.take(1).toList()).containsExactly(1)
				assertThat(exists("warden:lock:flow:fl-1")).isFalse()
				// Two collections at once take turns.
				val counts = (0 until 4).map { async { flows.counted("fl-2").toList() } }.awaitAll()
				assertThat(counts.flatten()).containsExactlyInAnyOrder(1, 2, 3, 4)
			}
		}
	}

	private fun invalidAnnotation(failure: Throwable?): InvalidAnnotationException =
		generateSequence(failure) { it.cause }.filterIsInstance<InvalidAnnotationException>().firstOrNull()
			?: throw AssertionError("No InvalidAnnotationException in the startup failure", failure)

	class SharedCounts {
		val values = ConcurrentHashMap<String, Int>()
	}

	@Component
	class Stock(private val counts: SharedCounts) {

		/** Reads, suspends, writes: without mutual exclusion, updates are lost. */
		@DistributedLock(name = "stock", key = ["#sku"], waitTime = 60_000)
		suspend fun increment(sku: String) {
			val value = counts.values[sku] ?: 0
			delay(5)
			counts.values[sku] = value + 1
		}

		@DistributedLock(name = "stock", key = ["#sku"], waitTime = 0)
		suspend fun reserveAgain(sku: String): String {
			delay(1)
			return "reserved $sku"
		}

	}

	@Component
	class Orders(private val stock: Stock) {

		@DistributedLock(name = "stock", key = ["#sku"], waitTime = 0)
		suspend fun reserve(sku: String): String {
			delay(1)
			return withContext(Dispatchers.IO) { stock.reserveAgain(sku) }
		}

	}

	@Component
	class Holder {

		val heldInFinally = CopyOnWriteArrayList<Boolean>()

		val fairRuns = java.util.concurrent.atomic.AtomicInteger()

		val waitedRuns = java.util.concurrent.atomic.AtomicInteger()

		@DistributedLock(name = "held", key = ["#key"])
		suspend fun hold(key: String, entered: CompletableDeferred<Unit>, proceed: CompletableDeferred<Unit>): String {
			entered.complete(Unit)
			proceed.await()
			return "done"
		}

		@DistributedLock(name = "stock", key = ["#sku"])
		suspend fun holdStock(sku: String, entered: CompletableDeferred<Unit>, proceed: CompletableDeferred<Unit>) {
			entered.complete(Unit)
			proceed.await()
		}

		@DistributedLock(name = "held", key = ["#key"])
		suspend fun fail(key: String): String {
			delay(1)
			throw IllegalStateException("failed under the lock")
		}

		@DistributedLock(name = "held", key = ["#key"])
		suspend fun holdUntilCancelled(key: String, entered: CompletableDeferred<Unit>) {
			entered.complete(Unit)
			try {
				CompletableDeferred<Unit>().await()
			}
			finally {
				withContext(NonCancellable) {
					delay(200)
					heldInFinally.add(redis.node().call("EXISTS", "warden:lock:held:$key") == 1L)
				}
			}
		}

		@DistributedLock(name = "held", key = ["#key"], waitTime = 60_000)
		suspend fun waitFor(key: String) {
			waitedRuns.incrementAndGet()
		}

		@DistributedLock(type = LockType.FAIR, name = "fair", key = ["#key"], waitTime = 60_000)
		suspend fun fair(key: String) {
			fairRuns.incrementAndGet()
		}

		@DistributedLock(name = "busy", key = ["#key"], waitTime = 0, onFailure = OnLockFailure.SKIP)
		suspend fun skipWhenBusy(key: String): String? = "worked"

		@DistributedLock(name = "busy", key = ["#key"], waitTime = 0)
		suspend fun throwWhenBusy(key: String): String = "worked"

		@DistributedLock(name = "busy", key = ["#key"], waitTime = 0, onFailure = OnLockFailure.FALLBACK,
			fallbackMethod = "busyFallback")
		suspend fun fallBackWhenBusy(key: String): String {
			delay(1)
			return "worked"
		}

		suspend fun busyFallback(key: String, failure: LockAcquisitionException): String {
			delay(1)
			return "fallback for ${failure.lockNames}"
		}

		@DistributedLock(name = "report", key = ["#day"], holdAtLeast = 60_000)
		suspend fun report(day: String) {
			delay(1)
		}

		@DistributedLock(name = "short", key = ["#key"], leaseTime = 100)
		suspend fun outlive(key: String) {
			// Suspended past its lease: the key expires meanwhile.
			eventually("the lease ran out") { redis.node().call("EXISTS", "warden:lock:short:$key") == 0L }
		}

		@DistributedLock(name = "fenced", key = ["#key"], fencingToken = true)
		suspend fun fenced(key: String): Pair<Long?, Long?> {
			delay(1)
			val fromJava = withContext(Dispatchers.IO) { LockContext.currentToken() }
			return Pair(currentLockToken(), if (fromJava.isPresent) fromJava.asLong else null)
		}

	}

	@Component
	class SuspendFlowService {

		@DistributedLock(name = "flow", key = ["#key"])
		suspend fun items(key: String): Flow<String> = flowOf(key)

	}

	@Component
	class FlowService {

		private var count = 0

		@DistributedLock(name = "flow", key = ["#key"])
		fun items(key: String): Flow<Int> = flow {
			for (i in 1..3) {
				delay(5)
				emit(i)
			}
		}

		/** Reads, suspends, writes: without mutual exclusion, two collections would emit one number twice. */
		@DistributedLock(name = "flow", key = ["#key"], waitTime = 60_000)
		fun counted(key: String): Flow<Int> = flow {
			val next = count + 1
			delay(5)
			count = next
			emit(next)
		}

	}

}
