package dev.warden.kotlin

import dev.warden.autoconfigure.WardenAutoConfiguration
import dev.warden.autoconfigure.WardenLockAutoConfiguration
import dev.warden.autoconfigure.WardenTaskAutoConfiguration
import dev.warden.test.redis.RedisNode
import java.time.Duration
import kotlinx.coroutines.delay
import kotlinx.coroutines.withTimeout
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/** Application contexts as a Kotlin application with the starter has them, on [node]. */
internal fun kotlinApplication(node: RedisNode, withKotlinSupport: Boolean = true): ApplicationContextRunner {
	val configurations = mutableListOf(JacksonAutoConfiguration::class.java, DataRedisAutoConfiguration::class.java,
		AopAutoConfiguration::class.java,
		WardenAutoConfiguration::class.java, WardenLockAutoConfiguration::class.java,
		WardenTaskAutoConfiguration::class.java)
	if (withKotlinSupport) {
		configurations.add(WardenKotlinAutoConfiguration::class.java)
	}
	return ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(*configurations.toTypedArray()))
		.withPropertyValues("spring.data.redis.host=${node.host()}", "spring.data.redis.port=${node.port()}",
			"warden.delayed-task.shutdown-grace=1s")
}

/** Waits, by polling every 10 ms, until [condition] holds; fails naming [what] after [timeout]. */
internal suspend fun eventually(what: String, timeout: Duration = Duration.ofSeconds(20), condition: suspend () -> Boolean) {
	try {
		withTimeout(timeout.toMillis()) {
			while (!condition()) {
				delay(10)
			}
		}
	}
	catch (ex: kotlinx.coroutines.TimeoutCancellationException) {
		throw AssertionError("Not within $timeout: $what", ex)
	}
}
