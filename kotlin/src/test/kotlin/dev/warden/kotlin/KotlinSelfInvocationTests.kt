package dev.warden.kotlin

import dev.warden.InvalidAnnotationException
import dev.warden.lock.annotation.DistributedLock
import dev.warden.test.redis.RedisServerExtension
import kotlinx.coroutines.delay
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
	class ProxyCallingStock(private val self: org.springframework.beans.factory.ObjectProvider<ProxyCallingStock>) {

		suspend fun restock(sku: String) {
			self.getObject().adjust(sku, 10)
		}

		@DistributedLock(name = "stock", key = ["#sku"])
		suspend fun adjust(sku: String, delta: Int = -1) {
			delay(1)
		}

	}

}
