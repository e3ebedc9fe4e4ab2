package dev.warden.kotlin

import dev.warden.InvalidAnnotationException
import dev.warden.lock.annotation.DistributedLock
import dev.warden.test.redis.RedisServerExtension
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.stereotype.Component

/** Kotlin services calling their own locked `suspend` functions on `this`, as Kotlin compiles them. */
class KotlinSelfInvocationTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	@Test
	fun aSuspendFunctionCallingItsOwnLockedSuspendFunctionFailsStartup() {
		kotlinApplication(redis.node()).withBean("stock", SelfCallingStock::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(invalidAnnotation(context.startupFailure).message)
				.contains("suspend ${SelfCallingStock::class.java.name}.restock(String) calls its own @DistributedLock "
					+ "method suspend ${SelfCallingStock::class.java.name}.adjust(String, int) on this")
				.contains("suspend ${SelfCallingStock::class.java.name}.sell(String) calls its own @DistributedLock")
		}
	}

	@Test
	fun callsOnThisInsideLaunchAndAsyncBlocksFailStartup() {
		kotlinApplication(redis.node()).withBean("stock", ChildCallingStock::class.java).run { context ->
			assertThat(context).hasFailed()
			val name = ChildCallingStock::class.java.name
			assertThat(invalidAnnotation(context.startupFailure).message)
				.contains("suspend $name.viaLaunch(String) calls its own @DistributedLock method suspend $name.guarded(String) on this")
				.contains("suspend $name.viaAsync(String) calls its own @DistributedLock method suspend $name.guarded(String) on this")
				.contains("a lambda in $name.viaRunnable calls its own @DistributedLock method suspend $name.guarded(String) on this")
		}
	}

	@Test
	fun callsThroughTheProxyAreFine() {
		kotlinApplication(redis.node()).withBean("stock", ProxyCallingStock::class.java).run { context ->
			assertThat(context).hasNotFailed()
		}
	}

	private fun invalidAnnotation(failure: Throwable?): InvalidAnnotationException =
		generateSequence(failure) { it.cause }.filterIsInstance<InvalidAnnotationException>().firstOrNull()
			?: throw AssertionError("No InvalidAnnotationException in the startup failure", failure)

	@Component
	class SelfCallingStock {

		suspend fun restock(sku: String) {
			delay(1)
			adjust(sku, 10)
		}

		/** Through Kotlin's default-argument stub. */
		suspend fun sell(sku: String) {
			adjust(sku)
		}

		@DistributedLock(name = "stock", key = ["#sku"])
		suspend fun adjust(sku: String, delta: Int = -1) {
			delay(1)
		}

	}

	@Component
	class ChildCallingStock {

		suspend fun viaLaunch(sku: String) = coroutineScope {
			launch { guarded(sku) }
		}

		suspend fun viaAsync(sku: String): String = coroutineScope {
			async { guarded(sku) }.await()
		}

		/** A plain lambda around a coroutine block. */
		fun viaRunnable(sku: String): Runnable = Runnable { runBlocking { guarded(sku) } }

		@DistributedLock(name = "stock", key = ["#sku"])
		suspend fun guarded(sku: String): String {
			delay(1)
			return sku
		}

	}

	@Component
	class ProxyCallingStock(private val self: org.springframework.beans.factory.ObjectProvider<ProxyCallingStock>) {

		suspend fun restock(sku: String) {
			self.getObject().adjust(sku, 10)
		}

		/** Through the proxy in a child coroutine: fine too. */
		suspend fun restockAll(skus: List<String>) = coroutineScope {
			skus.forEach { sku -> launch { self.getObject().adjust(sku, 10) } }
		}

		@DistributedLock(name = "stock", key = ["#sku"])
		suspend fun adjust(sku: String, delta: Int = -1) {
			delay(1)
		}

	}

}
