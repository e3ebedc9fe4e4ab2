package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.lock.annotation.DistributedLock
import dev.warden.lock.interceptor.LockCalls
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.CoroutineContext
import kotlin.random.Random
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import org.springframework.stereotype.Component

/**
 * A coroutine cancelled just as its lock or permit is granted (a `withTimeout` running out, a
 * client that disconnects) leaves nothing held: the grant is given back on every path.
 */
class CancelledAtTheGrantTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private const val LOCK = "warden:lock:grant:g-1"

		private const val SEMAPHORE = "grant-permits"

	}

	private val runner = kotlinApplication(redis.node()).withBean(Guarded::class.java)

	@Test
	fun aSuspendFunctionCancelledAsItsLockIsGrantedLeavesTheLockFree() {
		cancelledAtTheGrant(::lock) { context -> context.getBean(Guarded::class.java).call("g-1") }
	}

	@Test
	fun aLockedFlowCancelledAsItsLockIsGrantedLeavesTheLockFree() {
		cancelledAtTheGrant(::lock) { context -> context.getBean(Guarded::class.java).items("g-1").collect() }
	}

	@Test
	fun withLockCancelledAsTheLockIsGrantedLeavesTheLockFree() {
		cancelledAtTheGrant(::lock) { context ->
			val guarded = context.getBean(Guarded::class.java)
			context.getBean(Warden::class.java).withLock(LOCK, wait = 60.seconds) { guarded.runs.incrementAndGet() }
		}
	}

	@Test
	fun tryWithLockCancelledAsTheLockIsGrantedLeavesTheLockFree() {
		cancelledAtTheGrant(::lock) { context ->
			val guarded = context.getBean(Guarded::class.java)
			val warden = context.getBean(Warden::class.java)
			warden.getLock(LOCK).tryWithLock(warden.newOwner(), wait = 60.seconds) { guarded.runs.incrementAndGet() }
		}
	}

	@Test
	fun withPermitCancelledAsThePermitIsGrantedReturnsIt() {
		cancelledAtTheGrant(::permits) { context ->
			val guarded = context.getBean(Guarded::class.java)
			context.getBean(Warden::class.java).getSemaphore(SEMAPHORE).withPermit(wait = 60.seconds) {
				guarded.runs.incrementAndGet()
			}
		}
	}

	@Test
	fun cancellingAtRandomPointsNearAReleaseLeavesNothingHeld() {
		val seed = System.nanoTime()
		val random = Random(seed)
		runner.run { context ->
			val guarded = context.getBean(Guarded::class.java)
			val warden = context.getBean(Warden::class.java)
			val lock = lock(context)
			val permits = permits(context)
			val paths: List<Pair<String, suspend () -> Unit>> = listOf(
				"suspend function" to { guarded.call("g-1") },
				"locked flow" to { guarded.items("g-1").collect() },
				"withLock" to { warden.withLock(LOCK, wait = 60.seconds) { guarded.runs.incrementAndGet() } },
				"withPermit" to {
					warden.getSemaphore(SEMAPHORE).withPermit(wait = 60.seconds) { guarded.runs.incrementAndGet() }
				},
			)
			runBlocking {
				for (iteration in 0 until 200) {
					val (path, operation) = paths[iteration % paths.size]
					val contested = if (path == "withPermit") permits else lock
					contested.take()
					val job = launch(Dispatchers.Default) { operation() }
					spin(random.nextLong(0, 300_000))
					val released = contested.release()
					spin(random.nextLong(0, 1_500_000))
					job.cancel()
					withTimeout(30_000) { job.join() }
					released.get(30, TimeUnit.SECONDS)
					assertThat(contested.freeSoon()).`as`("%s free after iteration %d (seed %d)", path, iteration, seed)
						.isTrue()
				}
				eventually("no hold listed") { context.getBean(LockCalls::class.java).holds().isEmpty() }
			}
		}
	}

	/**
	 * Another owner holds what [operation] waits for and gives it up once the operation waits; the
	 * operation's coroutine is cancelled at the very dispatch that would resume it with the grant.
	 * Then what it waited for must be free, its body never having run.
	 */
	private fun cancelledAtTheGrant(contestedIn: (ApplicationContext) -> Contested,
			operation: suspend (ApplicationContext) -> Unit) {
		runner.run { context ->
			val contested = contestedIn(context)
			contested.take()
			CancelAtNextDispatch().use { dispatcher ->
				runBlocking {
					// Runs here up to its wait, which resumes it through the dispatcher.
					val job = launch(dispatcher, CoroutineStart.UNDISPATCHED) { operation(context) }
					dispatcher.arm(job)
					contested.release().get(30, TimeUnit.SECONDS)
					withTimeout(30_000) { job.join() }
					assertThat(job.isCancelled).isTrue()
				}
				assertThat(dispatcher.fired.count).`as`("cancelled when resumed with the grant").isZero()
				// The caller is done; what gives the grant back may still run on the dispatcher.
				assertThat(contested.freeSoon()).`as`("free again").isTrue()
			}
			assertThat(context.getBean(Guarded::class.java).runs.get()).`as`("runs of the body").isZero()
			runBlocking {
				eventually("no hold listed") { context.getBean(LockCalls::class.java).holds().isEmpty() }
			}
		}
	}

	private fun lock(context: ApplicationContext): Contested {
		val warden = context.getBean(Warden::class.java)
		val lock = warden.getLock(LOCK)
		val other = warden.newOwner()
		return Contested(
			take = { assertThat(lock.tryLock(other, 0, TimeUnit.SECONDS)).`as`("taken by another owner").isTrue() },
			release = { lock.unlockAsync(other) },
			freeSoon = {
				val probe = warden.newOwner()
				// Far shorter than forever, which is how long the watchdog would keep a lost grant.
				lock.tryLock(probe, 10, TimeUnit.SECONDS).also { taken -> if (taken) lock.unlock(probe) }
			},
		)
	}

	private fun permits(context: ApplicationContext): Contested {
		val semaphore = context.getBean(Warden::class.java).getSemaphore(SEMAPHORE)
		semaphore.trySetPermits(1)
		return Contested(
			take = { assertThat(semaphore.tryAcquire(1, 0, TimeUnit.SECONDS)).`as`("taken by another").isTrue() },
			release = { semaphore.releaseAsync(1) },
			freeSoon = {
				semaphore.tryAcquire(1, 10, TimeUnit.SECONDS).also { taken -> if (taken) semaphore.release(1) }
			},
		)
	}

	/** A lock or a permit another holder takes and gives up, and a probe of whether it is free. */
	private class Contested(val take: () -> Unit, val release: () -> CompletableFuture<*>, val freeSoon: () -> Boolean)

	/** Busy-waits [nanos]: a random point in time, not a synchronization. */
	private fun spin(nanos: Long) {
		val until = System.nanoTime() + nanos
		while (System.nanoTime() - until < 0) {
			Thread.onSpinWait()
		}
	}

	/**
	 * A dispatcher on one thread that, once armed, cancels a job at its next dispatch: a coroutine
	 * suspended in a wait is then cancelled after the acquisition completed and before it resumes.
	 */
	private class CancelAtNextDispatch : CoroutineDispatcher(), AutoCloseable {

		private val executor = Executors.newSingleThreadExecutor()

		private val armed = AtomicReference<Job?>()

		val fired = CountDownLatch(1)

		fun arm(job: Job) {
			armed.set(job)
		}

		override fun dispatch(context: CoroutineContext, block: Runnable) {
			armed.getAndSet(null)?.let { job ->
				job.cancel()
				fired.countDown()
			}
			executor.execute(block)
		}

		override fun close() {
			executor.shutdownNow()
		}

	}

	@Component
	class Guarded {

		val runs = AtomicInteger()

		@DistributedLock(name = "grant", key = ["#key"], waitTime = 60_000)
		suspend fun call(key: String) {
			runs.incrementAndGet()
		}

		@DistributedLock(name = "grant", key = ["#key"], waitTime = 60_000)
		fun items(key: String): Flow<Int> = flow {
			runs.incrementAndGet()
			emit(1)
		}

	}

}
