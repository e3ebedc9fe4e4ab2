package dev.warden.kotlin

import dev.warden.Warden
import dev.warden.autoconfigure.WardenRateLimitAutoConfiguration
import dev.warden.lock.annotation.DistributedLock
import dev.warden.ratelimit.RateLimitExceededException
import dev.warden.ratelimit.annotation.OnRateLimit
import dev.warden.ratelimit.annotation.RateLimited
import dev.warden.test.redis.RedisServerExtension
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * `@RateLimited` on `suspend` functions: the permits are taken suspending, the body runs in the
 * caller's context, and a refused call throws, skips or falls back to a `suspend` fallback.
 */
class SuspendRateLimitTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	private fun runner(): ApplicationContextRunner = kotlinApplication(redis.node())
		.withConfiguration(AutoConfigurations.of(WardenRateLimitAutoConfiguration::class.java))

	@BeforeEach
	fun flush() {
		redis.node().call("FLUSHALL")
	}

	@Test
	fun twoCallsPerCustomerRunInTheCallersContextAndTheThirdIsRefused() {
		runner().withBean(Exports::class.java).run { context ->
			val exports = context.getBean(Exports::class.java)
			runBlocking(CoroutineName("caller")) {
				assertThat(exports.export("acme")).isEqualTo("acme in caller")
				assertThat(exports.export("acme")).isEqualTo("acme in caller")
				val refused = assertThatExceptionOfType(RateLimitExceededException::class.java)
					.isThrownBy { runBlocking { exports.export("acme") } }.actual()
				assertThat(refused.retryAfter).isPositive()
				assertThat(exports.export("initech")).isEqualTo("initech in caller")
			}
		}
	}

	@Test
	fun aRefusedCallIsSkippedWithNullOrFallsBackToASuspendFallback() {
		runner().withBean(Exports::class.java).run { context ->
			val exports = context.getBean(Exports::class.java)
			runBlocking {
				assertThat(exports.preview("acme")).isEqualTo("preview of acme")
				assertThat(exports.preview("acme")).isNull()
				assertThat(exports.report("acme")).isEqualTo("report of acme")
				assertThat(withContext(CoroutineName("late")) { exports.report("acme") })
					.isEqualTo("acme later (late), reports:acme")
			}
		}
	}

	@Test
	fun theLimitSitsOutsideTheLockOfTheSameSuspendFunction() {
		runner().withBean(Exports::class.java).run { context ->
			val exports = context.getBean(Exports::class.java)
			val warden = context.getBean(Warden::class.java)
			runBlocking {
				assertThat(exports.restock("apple")).isEqualTo("locked: true")
				assertThatExceptionOfType(RateLimitExceededException::class.java)
					.isThrownBy { runBlocking { exports.restock("apple") } }
			}
			assertThat(warden.getLock("warden:lock:stock:apple").isLocked).isFalse()
		}
	}

	@Test
	fun aSkipThatWouldReturnNullForANonNullTypeOrAFlowFailsStartupNamingTheFunction() {
		runner().withBean(NonNullSkip::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(context.startupFailure).rootCause()
				.hasMessageContaining("NonNullSkip.export")
				.hasMessageContaining("returns a non-null String")
		}
		runner().withBean(FlowReturning::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(context.startupFailure).rootCause()
				.hasMessageContaining("FlowReturning.export")
				.hasMessageContaining("returning a Flow")
		}
	}

	open class Exports {

		@Volatile
		var warden: Warden? = null

		@Autowired
		open fun wardenClient(client: Warden) {
			warden = client
		}

		@RateLimited(name = "restocks", key = ["#sku"], permits = "1", period = "1h")
		@DistributedLock(name = "stock", key = ["#sku"])
		open suspend fun restock(sku: String): String {
			delay(1)
			return "locked: ${warden!!.getLock("warden:lock:stock:$sku").isLocked}"
		}

		@RateLimited(name = "exports", key = ["#customer"], permits = "2", period = "1h")
		open suspend fun export(customer: String): String {
			delay(1)
			return "$customer in ${currentCoroutineContext()[CoroutineName]?.name}"
		}

		@RateLimited(name = "previews", key = ["#customer"], permits = "1", period = "1h", onLimit = OnRateLimit.SKIP)
		open suspend fun preview(customer: String): String? {
			delay(1)
			return "preview of $customer"
		}

		@RateLimited(name = "reports", key = ["#customer"], permits = "1", period = "1h", onLimit = OnRateLimit.FALLBACK,
			fallbackMethod = "reportLater")
		open suspend fun report(customer: String): String {
			delay(1)
			return "report of $customer"
		}

		open suspend fun reportLater(customer: String, refused: RateLimitExceededException): String {
			delay(1)
			return "$customer later (${currentCoroutineContext()[CoroutineName]?.name}), ${refused.limiter}"
		}

	}

	open class NonNullSkip {

		@RateLimited(permits = "1", onLimit = OnRateLimit.SKIP)
		open suspend fun export(customer: String): String = customer

	}

	open class FlowReturning {

		@RateLimited(permits = "1")
		open suspend fun export(customer: String): Flow<String> = flowOf(customer)

	}

}
