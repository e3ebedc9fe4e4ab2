package dev.warden.kotlin

import dev.warden.autoconfigure.WardenLockAutoConfiguration
import org.springframework.boot.autoconfigure.AutoConfiguration
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean
import org.springframework.context.annotation.Bean

/**
 * Kotlin coroutines for Warden, when the application has them (`kotlinx-coroutines-reactor`, which
 * Spring needs to advise `suspend` functions, and `kotlin-reflect`): `suspend` functions under
 * `@DistributedLock`.
 */
@AutoConfiguration(after = [WardenLockAutoConfiguration::class])
@ConditionalOnClass(name = ["kotlinx.coroutines.reactor.MonoKt", "kotlin.reflect.full.KClasses"])
@ConditionalOnBean(type = ["dev.warden.lock.interceptor.LockAspectSupport"])
class WardenKotlinAutoConfiguration {

	/** Holds the locks of `@DistributedLock` `suspend` functions for their whole body. */
	@Bean
	@ConditionalOnMissingBean
	fun coroutineLockHandler(): CoroutineLockHandler = CoroutineLockHandler()

}
