package dev.warden.kotlin

import dev.warden.autoconfigure.WardenRateLimitAutoConfiguration
import dev.warden.ratelimit.annotation.RateLimited
import dev.warden.test.redis.RedisServerExtension
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations

/**
 * `@RateLimited` does not take `suspend` functions yet: an application with one fails startup
 * naming it, rather than run it unlimited.
 */
class SuspendRateLimitTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	@Test
	fun aRateLimitedSuspendFunctionFailsStartupNamingIt() {
		kotlinApplication(redis.node())
			.withConfiguration(AutoConfigurations.of(WardenRateLimitAutoConfiguration::class.java))
			.withBean(Exports::class.java)
			.run { context ->
				assertThat(context).hasFailed()
				assertThat(context.startupFailure).rootCause()
					.hasMessageContaining("Exports.export")
					.hasMessageContaining("a suspend function is not rate limited yet")
			}
	}

	open class Exports {

		@RateLimited(permits = "1")
		open suspend fun export(customer: String): String {
			delay(1)
			return customer
		}

	}

}
