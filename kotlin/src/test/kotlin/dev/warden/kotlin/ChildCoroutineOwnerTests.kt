package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.lock.annotation.DistributedLock
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.stereotype.Component

/**
 * Children of one locked Kotlin call re-enter the locks their parent holds, and are owners of their
 * own for any other lock: siblings exclude each other on it.
 */
class ChildCoroutineOwnerTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private const val CHILDREN = 4

	}

	private val runner = kotlinApplication(redis.node()).withBean(Family::class.java)

	@Test
	fun childrenOfALockedCallReEnterItsLockButExcludeEachOtherOnAnother() {
		runner.run { context ->
			val family = context.getBean(Family::class.java)
			runBlocking(Dispatchers.Default) {
				family.parent("p-1") {
					coroutineScope {
						repeat(CHILDREN) {
							launch {
								// The parent's lock, with no wait: taken only by re-entering it.
								family.reenter("p-1")
								family.child("c-1")
							}
						}
					}
				}
			}
			assertThat(family.reentered.get()).`as`("children that re-entered the parent's lock").isEqualTo(CHILDREN)
			assertThat(family.childRuns.get()).isEqualTo(CHILDREN)
			assertThat(family.mostInsideAtOnce.get()).`as`("children inside the child lock at once").isEqualTo(1)
			assertThat(redis.node().call("EXISTS", "warden:lock:child:c-1", "warden:lock:parent:p-1")).isEqualTo(0L)
		}
	}

	@Test
	fun childrenInAWithLockBlockReEnterItButExcludeEachOtherOnAnotherLock() {
		runner.run { context ->
			val warden = context.getBean(Warden::class.java)
			val inside = AtomicInteger()
			val mostInside = AtomicInteger()
			val reentered = AtomicInteger()
			runBlocking(Dispatchers.Default) {
				warden.withLock("block-parent") {
					coroutineScope {
						repeat(CHILDREN) {
							launch {
								warden.withLock("block-parent", wait = kotlin.time.Duration.ZERO) { reentered.incrementAndGet() }
								warden.withLock("block-child", wait = 30.seconds) {
									mostInside.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
									delay(50)
									inside.decrementAndGet()
								}
							}
						}
					}
				}
			}
			assertThat(reentered.get()).isEqualTo(CHILDREN)
			assertThat(mostInside.get()).`as`("children inside the child lock at once").isEqualTo(1)
			assertThat(redis.node().call("EXISTS", "block-child", "block-parent")).isEqualTo(0L)
		}
	}

	@Test
	fun aCallNestedInAChildReEntersTheChildsOwnLock() {
		runner.run { context ->
			val family = context.getBean(Family::class.java)
			runBlocking(Dispatchers.Default) {
				family.parent("p-2") {
					coroutineScope {
						launch {
							family.childThen("c-2") {
								// Held by this child's own owner: re-entered, with no wait.
								family.reenterChild("c-2")
								// And the parent's, still re-entered with the parent's owner.
								family.reenter("p-2")
							}
						}
					}
				}
			}
			assertThat(family.reentered.get()).isEqualTo(2)
		}
	}

	@Component
	class Family {

		val reentered = AtomicInteger()

		val childRuns = AtomicInteger()

		private val inside = AtomicInteger()

		val mostInsideAtOnce = AtomicInteger()

		@DistributedLock(name = "parent", key = ["#key"], waitTime = 30_000)
		suspend fun parent(key: String, body: suspend () -> Unit) {
			body()
		}

		@DistributedLock(name = "parent", key = ["#key"], waitTime = 0)
		suspend fun reenter(key: String) {
			reentered.incrementAndGet()
		}

		@DistributedLock(name = "child", key = ["#key"], waitTime = 30_000)
		suspend fun child(key: String) {
			mostInsideAtOnce.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
			try {
				delay(50)
				childRuns.incrementAndGet()
			}
			finally {
				inside.decrementAndGet()
			}
		}

		@DistributedLock(name = "child", key = ["#key"], waitTime = 30_000)
		suspend fun childThen(key: String, body: suspend () -> Unit) {
			body()
		}

		@DistributedLock(name = "child", key = ["#key"], waitTime = 0)
		suspend fun reenterChild(key: String) {
			reentered.incrementAndGet()
		}

	}

}
