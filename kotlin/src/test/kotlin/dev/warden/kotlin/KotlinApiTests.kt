package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.lock.LockAcquisitionException
import dev.warden.lock.annotation.DistributedLock
import dev.warden.task.ConsumerOptions
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.stereotype.Component

/** The suspending extensions of the lock and queue API, without annotations. */
class KotlinApiTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	private val runner = kotlinApplication(redis.node()).withBean(Reserved::class.java)

	private fun exists(key: String): Boolean = redis.node().call("EXISTS", key) == 1L

	@Test
	fun withLockExcludesCoroutinesAndReleases() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			var value = 0
			runBlocking(Dispatchers.Default) {
				(0 until 30).map {
					async {
						warden.withLock("api:counter", wait = 60.seconds) {
							val read = value
							delay(2)
							value = read + 1
						}
					}
				}.awaitAll()
			}
			assertThat(value).isEqualTo(30)
			assertThat(exists("api:counter")).isFalse()
		}
	}

	@Test
	fun aNestedWithLockOrLockedCallInTheBlockReEnters() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val reserved = context.getBean(Reserved::class.java)
			val result = runBlocking(Dispatchers.Default) {
				warden.withLock("warden:lock:reserve:r-1", wait = 0.seconds) {
					warden.withLock("warden:lock:reserve:r-1", wait = 0.seconds) {
						reserved.reserve("r-1")
					}
				}
			}
			assertThat(result).isEqualTo("reserved r-1")
			assertThat(exists("warden:lock:reserve:r-1")).isFalse()
		}
	}

	@Test
	fun tryWithLockGivesNullWhenBusyAndWithLockThrows() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val owner = warden.newOwner()
			assertThat(warden.getLock("api:busy").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue()
			runBlocking {
				assertThat(warden.getLock("api:busy").tryWithLock(warden.coroutineOwner()) { "ran" }).isNull()
				assertThatThrownBy { runBlocking { warden.withLock("api:busy", wait = 50.milliseconds) { } } }
					.isInstanceOf(LockAcquisitionException::class.java)
			}
			warden.getLock("api:busy").unlock(owner)
			runBlocking {
				assertThat(warden.getLock("api:busy").tryWithLock(warden.coroutineOwner()) { "ran" }).isEqualTo("ran")
			}
		}
	}

	@Test
	fun aCancelledWaitLeavesNothingHeld() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val owner = warden.newOwner()
			val lock = warden.getFairLock("api:fair")
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue()
			runBlocking(Dispatchers.Default) {
				val waiter = launch { lock.withLock(warden.coroutineOwner()) { error("must not run") } }
				eventually("the waiter queued") {
					redis.node().call("LLEN", "redisson_lock_queue:{api:fair}") == 1L
				}
				waiter.cancel()
				waiter.join()
				eventually("the queue emptied") { redis.node().call("LLEN", "redisson_lock_queue:{api:fair}") == 0L }
			}
			lock.unlock(owner)
			assertThat(exists("api:fair")).isFalse()
		}
	}

	@Test
	fun withPermitBoundsConcurrency() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val semaphore = warden.getSemaphore("api:permits")
			assertThat(semaphore.trySetPermits(2)).isTrue()
			val running = AtomicInteger()
			val most = AtomicInteger()
			runBlocking(Dispatchers.Default) {
				(0 until 10).map {
					async {
						semaphore.withPermit(wait = 60.seconds) {
							most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
							delay(10)
							running.decrementAndGet()
						}
					}
				}.awaitAll()
			}
			assertThat(most.get()).isBetween(1, 2)
			assertThat(semaphore.availablePermits()).isEqualTo(2)
		}
	}

	@Test
	fun consumeSuspendingRunsAndRetriesInCoroutines() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val queue = warden.getDelayedQueue("api:queue", String::class.java)
			val runs = CopyOnWriteArrayList<String>()
			queue.consumeSuspending(ConsumerOptions.DEFAULTS.withBackoff(java.time.Duration.ofMillis(20))) { task ->
				delay(5)
				runs.add("${task.id()}#${task.attempt()}")
				if (task.attempt() == 1) {
					throw IllegalStateException("first attempt fails")
				}
			}
			queue.schedule("t-1", "x", java.time.Duration.ZERO)
			runBlocking { eventually("the second attempt") { runs.size == 2 } }
			assertThat(runs).containsExactly("t-1#1", "t-1#2")
		}
	}

	@Component
	class Reserved {

		@DistributedLock(name = "reserve", key = ["#id"], waitTime = 0)
		suspend fun reserve(id: String): String {
			delay(1)
			return "reserved $id"
		}

	}

}
