package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.lock.annotation.DistributedLock
import dev.warden.lock.interceptor.LockCalls
import dev.warden.test.redis.RedisServerExtension
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.CoroutineContext
import kotlin.random.Random
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import org.springframework.stereotype.Component

/**
 * Random interleavings of coroutines that lock — `@DistributedLock` suspend functions, locked
 * flows, `withLock`, `tryWithLock` and `withPermit` — on two application instances, over two lock
 * names and a semaphore, with cancellation injected at the suspension points (a coroutine cancelled
 * while it waits, or while its body runs) and at the completion points (cancelled at the very
 * dispatch that would resume it with a grant, or just after a holder let go). After every step:
 * - no two bodies run at once on one lock, nor more than the semaphore's permits;
 * - once every coroutine that used a lock or the semaphore has ended, the lock is free for another
 *   owner and every permit is back (within [SETTLE]: a win given back after a cancellation is
 *   released asynchronously); at the end, no hold is listed.
 *
 * Each sequence is generated from its own seed, `base + index`; a failure names the seed and the
 * operations, replayed with `-Dwarden.statemachine.seed=<seed> -Dwarden.statemachine.sequences=1`.
 * The sizes are `warden.statemachine.sequences` and `warden.statemachine.steps` (larger with
 * `-Pstate-machine-soak`), as for the Java state machines.
 */
class CoroutineLockStateMachineTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private const val NAMES = 2

		private const val PERMITS = 2

		private const val SEMAPHORE = "machine-permits"

		/** How long a lock or permit may take to be free once nothing uses it any more. */
		private val SETTLE = java.time.Duration.ofSeconds(10)

		/** How long shrinking a failing sequence may take. */
		private val SHRINK = java.time.Duration.ofSeconds(90)

		/** The Redis key of the lock `@DistributedLock(name = "machine", key = ["#key"])` takes for [name]. */
		fun lockKey(name: Int) = "warden:lock:machine:k$name"

		private fun property(name: String): String? = System.getProperty(name)?.trim()?.takeIf { it.isNotEmpty() }

	}

	enum class Path { SUSPEND_FUNCTION, FLOW, WITH_LOCK, TRY_WITH_LOCK, WITH_PERMIT }

	sealed interface Operation

	/** Launches a coroutine that takes [name]'s lock (or permits) along [path], waiting up to [waitMillis]. */
	data class Start(val path: Path, val name: Int, val waitMillis: Long, val instance: Int) : Operation

	/** Lets the n-th body running return. */
	data class Finish(val nth: Int) : Operation

	/** Cancels the n-th coroutine not yet ended, after spinning [spinNanos]: in its wait, or in its body. */
	data class Cancel(val nth: Int, val spinNanos: Long) : Operation

	/** Arms the n-th waiting coroutine to be cancelled at its next dispatch: as its grant resumes it. */
	data class CancelAtGrant(val nth: Int) : Operation

	/** Lets the n-th body return, spins [spinNanos], and cancels the n-th waiting coroutine. */
	data class FinishThenCancel(val inside: Int, val waiting: Int, val spinNanos: Long) : Operation

	data class Pause(val millis: Long) : Operation

	fun generate(random: Random, steps: Int): List<Operation> {
		val waits = longArrayOf(0, 300, 3_000)
		return List(steps) {
			when (random.nextInt(20)) {
				in 0..6 -> Start(Path.entries[random.nextInt(Path.entries.size)], random.nextInt(NAMES),
					waits[random.nextInt(waits.size)], random.nextInt(2))
				in 7..9 -> Finish(random.nextInt(4))
				10, 11 -> Cancel(random.nextInt(4), random.nextLong(0, 300_000))
				12, 13 -> CancelAtGrant(random.nextInt(4))
				in 14..16 -> FinishThenCancel(random.nextInt(4), random.nextInt(4), random.nextLong(0, 1_500_000))
				else -> Pause(10L + random.nextInt(200))
			}
		}
	}

	private val runner = kotlinApplication(redis.node()).withBean(Guarded::class.java)

	@Test
	fun randomCoroutinesCancelledAnywhereKeepEveryPromise() {
		val base = property("warden.statemachine.seed")?.toLong() ?: 0xc0L
		val sequences = property("warden.statemachine.sequences")?.toInt() ?: 6
		val steps = property("warden.statemachine.steps")?.toInt() ?: 40
		runner.run { first ->
			runner.run { second ->
				val contexts = listOf(first, second)
				for (index in 0 until sequences) {
					val seed = base + index
					val operations = generate(Random(seed), steps)
					val failure = failure(contexts, operations) ?: continue
					val shrunk = shrink(contexts, operations)
					val reported = failure(contexts, shrunk) ?: failure
					throw AssertionError("coroutine locks: seed $seed (replay with -Dwarden.statemachine.seed=$seed"
							+ " -Dwarden.statemachine.sequences=1 -Dwarden.statemachine.steps=$steps) broke a promise after "
							+ "${operations.size} operations, shrunk to ${shrunk.size}:\n"
							+ shrunk.joinToString("\n") { "  $it" } + "\n" + reported.message, reported)
				}
			}
		}
	}

	private fun failure(contexts: List<ApplicationContext>, operations: List<Operation>): AssertionError? = try {
		World(contexts).use { world -> world.run(operations) }
		null
	}
	catch (failure: AssertionError) {
		failure
	}

	/**
	 * Removes chunks of ever smaller size while the sequence still fails (each candidate tried
	 * twice, since a replay meets the same operations but not always the same interleaving), for
	 * at most [SHRINK].
	 */
	private fun shrink(contexts: List<ApplicationContext>, operations: List<Operation>): List<Operation> {
		val deadline = System.nanoTime() + SHRINK.toNanos()
		var current = operations
		var chunk = maxOf(1, current.size / 2)
		while (chunk >= 1) {
			var removed = true
			while (removed) {
				removed = false
				var from = 0
				while (from + chunk <= current.size) {
					if (System.nanoTime() > deadline) {
						return current
					}
					val candidate = current.subList(0, from) + current.subList(from + chunk, current.size)
					if ((0 until 2).any { failure(contexts, candidate) != null }) {
						current = candidate
						removed = true
						break
					}
					from += chunk
				}
			}
			chunk /= 2
		}
		return current
	}

	/** A coroutine launched by a [Start]. */
	class Run(val start: Start, val resource: String, val dispatcher: Armed) {

		val gate = CompletableDeferred<Unit>()

		@Volatile
		var inside = false

		lateinit var job: Job

		override fun toString() = "$start${if (inside) " (inside)" else ""}"

	}

	/** A dispatcher that, once armed, cancels its job at its next dispatch. */
	class Armed(private val executor: CoroutineDispatcher) : CoroutineDispatcher() {

		private val armed = AtomicReference<Job?>()

		fun arm(job: Job) = armed.set(job)

		override fun dispatch(context: CoroutineContext, block: Runnable) {
			armed.getAndSet(null)?.cancel()
			executor.dispatch(context, block)
		}

	}

	inner class World(private val contexts: List<ApplicationContext>) : AutoCloseable {

		private val executor = Executors.newFixedThreadPool(2)

		private val threads = executor.asCoroutineDispatcher()

		private val scope = CoroutineScope(SupervisorJob())

		private val runs = mutableListOf<Run>()

		private val inside = ConcurrentHashMap<String, AtomicInteger>()

		private val broken = CopyOnWriteArrayList<String>()

		private val warden = contexts[0].getBean(Warden::class.java)

		/** Holds listed before the sequence (left by a failed one while shrinking). */
		private val listedBefore: Set<LockCalls.Hold>

		init {
			// What a failed sequence left goes: a hold its watchdog renews is then reported lost.
			redis.node().call("FLUSHALL")
			listedBefore = contexts.flatMap { it.getBean(LockCalls::class.java).holds() }.toSet()
			warden.getSemaphore(SEMAPHORE).trySetPermits(PERMITS)
		}

		fun run(operations: List<Operation>) = runBlocking {
			for ((index, operation) in operations.withIndex()) {
				val at = "step ${index + 1} ($operation)"
				apply(operation)
				check(at)
			}
			for (run in runs) {
				run.job.cancel()
			}
			withTimeout(30_000) {
				for (run in runs) {
					run.job.join()
				}
			}
			check("the end")
			eventually("no hold listed", SETTLE) {
				contexts.all { context -> (context.getBean(LockCalls::class.java).holds() - listedBefore).isEmpty() }
			}
		}

		private fun live() = runs.filter { !it.job.isCompleted }

		private fun insideNow() = live().filter { it.inside }

		private fun waiting() = live().filter { !it.inside }

		private suspend fun apply(operation: Operation) {
			when (operation) {
				is Start -> start(operation)
				is Finish -> insideNow().nthOrNull(operation.nth)?.gate?.complete(Unit)
				is Cancel -> live().nthOrNull(operation.nth)?.let { run ->
					spin(operation.spinNanos)
					run.job.cancel()
				}
				is CancelAtGrant -> waiting().nthOrNull(operation.nth)?.let { run -> run.dispatcher.arm(run.job) }
				is FinishThenCancel -> {
					val waiter = waiting().nthOrNull(operation.waiting)
					insideNow().nthOrNull(operation.inside)?.gate?.complete(Unit)
					spin(operation.spinNanos)
					waiter?.job?.cancel()
				}
				is Pause -> delay(operation.millis)
			}
		}

		private fun start(start: Start) {
			val context = contexts[start.instance]
			val guarded = context.getBean(Guarded::class.java)
			val warden = context.getBean(Warden::class.java)
			val resource = if (start.path == Path.WITH_PERMIT) SEMAPHORE else lockKey(start.name)
			val run = Run(start, resource, Armed(threads))
			val wait = start.waitMillis.milliseconds
			val body: suspend () -> Unit = { body(run) }
			run.job = scope.launch(run.dispatcher, CoroutineStart.UNDISPATCHED) {
				try {
					when (start.path) {
						Path.SUSPEND_FUNCTION -> guarded.call("k${start.name}", body)
						Path.FLOW -> guarded.items("k${start.name}", body).collect()
						Path.WITH_LOCK -> warden.withLock(resource, wait) { body() }
						Path.TRY_WITH_LOCK -> warden.getLock(resource).tryWithLock(warden.newOwner(), wait) { body() }
						Path.WITH_PERMIT -> warden.getSemaphore(SEMAPHORE).withPermit(1, wait) { body() }
					}
				}
				catch (ex: dev.warden.lock.LockAcquisitionException) {
					// Not acquired within the wait.
				}
				catch (ex: CancellationException) {
					throw ex
				}
				catch (ex: Throwable) {
					broken.add("$run failed: $ex")
				}
			}
			runs.add(run)
		}

		private suspend fun body(run: Run) {
			val limit = if (run.resource == SEMAPHORE) PERMITS else 1
			val count = inside.computeIfAbsent(run.resource) { AtomicInteger() }.incrementAndGet()
			if (count > limit) {
				broken.add("$count bodies ran at once on ${run.resource} (limit $limit), the last: $run")
			}
			run.inside = true
			try {
				run.gate.await()
			}
			finally {
				run.inside = false
				inside.getValue(run.resource).decrementAndGet()
			}
		}

		private suspend fun check(at: String) {
			if (broken.isNotEmpty()) {
				throw AssertionError("$at: ${broken.joinToString("; ")}")
			}
			val used = live().map { it.resource }.toSet()
			for (name in 0 until NAMES) {
				val key = lockKey(name)
				if (key in used) {
					continue
				}
				val lock = warden.getLock(key)
				val free = java.util.concurrent.atomic.AtomicBoolean()
				try {
					eventually("free", SETTLE) {
						val probe = warden.newOwner()
						lock.tryLock(probe, 0, TimeUnit.MILLISECONDS).also { taken ->
							if (taken) {
								lock.unlock(probe)
								free.set(true)
							}
						}
					}
				}
				catch (notFree: AssertionError) {
					throw AssertionError("$at: no coroutine uses '$key' any more, but another owner cannot acquire it within "
							+ "$SETTLE (time to live ${lock.remainingTimeToLive()} ms): a win was lost", notFree)
				}
			}
			if (SEMAPHORE !in used) {
				val semaphore = warden.getSemaphore(SEMAPHORE)
				try {
					eventually("permits back", SETTLE) { semaphore.availablePermits() == PERMITS }
				}
				catch (notBack: AssertionError) {
					throw AssertionError("$at: no coroutine uses the semaphore any more, but only "
							+ "${semaphore.availablePermits()} of $PERMITS permits are available: a win was lost", notBack)
				}
			}
		}

		override fun close() {
			for (run in runs) {
				run.gate.complete(Unit)
				run.job.cancel()
			}
			executor.shutdown()
			executor.awaitTermination(10, TimeUnit.SECONDS)
		}

	}

	private fun <T> List<T>.nthOrNull(nth: Int): T? = if (isEmpty()) null else this[nth % size]

	/** Busy-waits [nanos]: a random point in time, not a synchronization. */
	private fun spin(nanos: Long) {
		val until = System.nanoTime() + nanos
		while (System.nanoTime() - until < 0) {
			Thread.onSpinWait()
		}
	}

	@Component
	class Guarded {

		@DistributedLock(name = "machine", key = ["#key"], waitTime = 3_000)
		suspend fun call(key: String, body: suspend () -> Unit) {
			body()
		}

		@DistributedLock(name = "machine", key = ["#key"], waitTime = 3_000)
		fun items(key: String, body: suspend () -> Unit): Flow<Int> = flow {
			body()
			emit(1)
		}

	}

}
