package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.task.ScheduleResult
import dev.warden.task.TaskHandle
import dev.warden.task.annotation.DelayedTask
import dev.warden.task.annotation.RecurringTask
import dev.warden.task.annotation.TaskLimit
import dev.warden.task.annotation.TaskUpgrade
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.entry
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.stereotype.Component

/** `suspend` functions as `@DelayedTask` and `@RecurringTask` handlers, called as Kotlin services call them. */
class SuspendTaskTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	private val runner = kotlinApplication(redis.node()).withBean(Orders::class.java)

	private fun pending(queue: String): Long = redis.node().call("ZCARD", "warden:task:{$queue}:due") as Long

	@Test
	fun callingASuspendTaskSchedulesItAndItRunsInACoroutineWithItsDataClassArguments() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			val order = OrderRef("o-1", lines = listOf(Line("apple", 2)))
			runBlocking { orders.closeIfUnpaid(order, note = null) }
			assertThat(orders.closed).`as`("not run by the call").isEmpty()
			assertThat(pending("k-close")).isEqualTo(1L)
			runBlocking {
				eventually("the task ran") { orders.closed.isNotEmpty() }
			}
			assertThat(orders.closed).containsExactly(Pair(order, null))
			assertThat(orders.closed[0].first.currency).`as`("a default argument").isEqualTo("EUR")
		}
	}

	@Test
	fun aSuspendTaskOfAnOlderVersionRunsThroughItsUpgrade() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			// Version 1 took the order id alone: its payload is that id's JSON.
			context.getBean(Warden::class.java).getDelayedQueue("k-upgraded", String::class.java)
				.schedule("t", "o-7", java.time.Duration.ZERO)
			runBlocking {
				eventually("the old task ran") { orders.upgraded.isNotEmpty() }
			}
			assertThat(orders.upgraded).containsExactly(Pair("o-7", 0))
		}
	}

	@Test
	fun aSuspendTaskCanReturnItsHandle() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			val handle = runBlocking { orders.remind("o-2") }
			assertThat(handle.id()).isEqualTo("remind-o-2")
			assertThat(handle.result().status()).isEqualTo(ScheduleResult.Status.SCHEDULED)
			assertThat(pending("k-remind")).isEqualTo(1L)
		}
	}

	@Test
	fun aFailingSuspendHandlerIsRetriedThenDeadLettered() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			val warden = context.getBean(Warden::class.java)
			runBlocking {
				orders.charge("o-3")
				eventually("a dead letter") {
					warden.getDelayedQueue("k-charge", String::class.java).deadLetters().isNotEmpty()
				}
			}
			val dead = warden.getDelayedQueue("k-charge", String::class.java).deadLetters().single()
			assertThat(dead.attempts()).isEqualTo(2)
			assertThat(dead.error()).contains("declined o-3")
			assertThat(orders.charges.get()).isEqualTo(2)
		}
	}

	@Test
	fun aHandlerSuspendedLongerThanItsVisibilityTimeoutRunsOnce() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			runBlocking {
				orders.export("o-4")
				eventually("the export finished") { orders.exportsFinished.get() == 1 }
				eventually("the task acknowledged") {
					redis.node().call("ZCARD", "warden:task:{k-export}:inflight") == 0L && pending("k-export") == 0L
				}
			}
			assertThat(orders.exportsStarted.get()).`as`("delivered once").isEqualTo(1)
		}
	}

	@Test
	fun aLostClaimCancelsTheHandler() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			runBlocking {
				orders.watch("o-5")
				orders.watching.await()
				// Another consumer's claim, as after a redelivery: this one's is lost (tasks format 2 keeps
				// a claim in x:<id>: deliveries, then the token).
				redis.node().call("HSET", "warden:task:{k-watch}:meta", "x:watch-o-5", "2 someone-else:1:1:x")
				eventually("the handler cancelled") { orders.watchCancelled.isNotEmpty() }
			}
			assertThat(orders.watchCancelled).`as`("cancelled once").hasSize(1)
		}
	}

	@Test
	fun theLimitKeyOfASuspendTaskIsReadFromItsArguments() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			runBlocking {
				repeat(4) { orders.ship(OrderRef("acme-$it"), "acme") }
				orders.ship(OrderRef("initech-0"), "initech")
				eventually("the five shipments") { orders.shipped.size == 5 }
			}
			assertThat(orders.mostShipping).containsOnly(entry("acme", 1), entry("initech", 1))
		}
	}

	@Test
	fun aSuspendRecurringTaskRuns() {
		runner.withBean(Ticker::class.java).run { context ->
			val ticker = context.getBean(Ticker::class.java)
			runBlocking {
				eventually("two occurrences") { ticker.ticks.get() >= 2 }
			}
		}
	}

	data class Line(val sku: String, val quantity: Int)

	data class OrderRef(val id: String, val currency: String = "EUR", val lines: List<Line> = emptyList())

	@Component
	class Orders {

		companion object {

			@JvmStatic
			@TaskUpgrade(queue = "k-upgraded", from = 1)
			fun fromVersion1(orderId: String): Array<Any?> = arrayOf(orderId, 0)

		}

		val closed = CopyOnWriteArrayList<Pair<OrderRef, String?>>()

		val charges = AtomicInteger()

		val exportsStarted = AtomicInteger()

		val exportsFinished = AtomicInteger()

		val watching = CompletableDeferred<Unit>()

		val watchCancelled = CopyOnWriteArrayList<String>()

		val upgraded = CopyOnWriteArrayList<Pair<String, Int>>()

		@DelayedTask(queue = "k-upgraded", delay = "1h", version = 2)
		suspend fun prioritised(orderId: String, priority: Int) {
			delay(1)
			upgraded.add(Pair(orderId, priority))
		}

		@DelayedTask(queue = "k-close", delay = "50ms", id = "#order.id")
		suspend fun closeIfUnpaid(order: OrderRef, note: String?) {
			delay(5)
			withContext(Dispatchers.IO) { closed.add(Pair(order, note)) }
		}

		@DelayedTask(queue = "k-remind", delay = "1h", id = "'remind-' + #orderId")
		suspend fun remind(orderId: String): TaskHandle = throw IllegalStateException("scheduled, not run")

		@DelayedTask(queue = "k-charge", delay = "10ms", maxAttempts = 2, backoff = "50ms")
		suspend fun charge(orderId: String) {
			charges.incrementAndGet()
			delay(5)
			throw IllegalStateException("declined $orderId")
		}

		val shipping = ConcurrentHashMap<String, AtomicInteger>()

		val mostShipping = ConcurrentHashMap<String, Int>()

		val shipped = CopyOnWriteArrayList<String>()

		@DelayedTask(queue = "k-ship", delay = "10ms", limit = TaskLimit(key = "#customer", concurrency = "1"))
		suspend fun ship(order: OrderRef, customer: String) {
			val now = shipping.computeIfAbsent(customer) { AtomicInteger() }.incrementAndGet()
			mostShipping.merge(customer, now, ::maxOf)
			// Suspended a while, so that tasks of a customer would overlap without the limit.
			delay(20)
			shipping.getValue(customer).decrementAndGet()
			shipped.add(order.id)
		}

		@DelayedTask(queue = "k-export", delay = "10ms", visibilityTimeout = "1s")
		suspend fun export(orderId: String) {
			exportsStarted.incrementAndGet()
			delay(2_500)
			exportsFinished.incrementAndGet()
		}

		@DelayedTask(queue = "k-watch", delay = "10ms", visibilityTimeout = "600ms", id = "'watch-' + #orderId")
		suspend fun watch(orderId: String) {
			watching.complete(Unit)
			try {
				CompletableDeferred<Unit>().await()
			}
			catch (cancelled: CancellationException) {
				watchCancelled.add(cancelled.message ?: "")
				throw cancelled
			}
		}

	}

	@Component
	class Ticker {

		val ticks = AtomicInteger()

		@RecurringTask(fixedRate = "100ms")
		suspend fun tick() {
			delay(1)
			ticks.incrementAndGet()
		}

	}

}
