package dev.warden.kotlin

import java.lang.reflect.Method
import java.util.concurrent.atomic.AtomicInteger
import org.aopalliance.intercept.MethodInterceptor
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.TestInfo
import org.springframework.aop.support.DefaultPointcutAdvisor
import org.springframework.aop.support.StaticMethodMatcherPointcut
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.core.Ordered
import org.springframework.stereotype.Component

/**
 * The same behaviour when other advice runs after the lock's (as `@Transactional` does): the body
 * is then reached through the rest of the chain and Spring's coroutine bridge, not called directly.
 */
class SuspendLockBehindOtherAdviceTests : SuspendLockTests() {

	companion object {

		/** Calls that went through the advice after the lock's. */
		val advised = AtomicInteger()

		/** Every method of the tests' beans. */
		private val testBeans = object : StaticMethodMatcherPointcut() {
			override fun matches(method: Method, targetClass: Class<*>): Boolean =
				targetClass.enclosingClass == SuspendLockTests::class.java && targetClass.isAnnotationPresent(Component::class.java)
		}

	}

	override fun application(): ApplicationContextRunner = super.application().withBean("innerAdvice",
		DefaultPointcutAdvisor::class.java, {
			DefaultPointcutAdvisor(testBeans, MethodInterceptor { invocation ->
				advised.incrementAndGet()
				invocation.proceed()
			}).apply { order = Ordered.LOWEST_PRECEDENCE }
		})

	@AfterEach
	fun theCallsWentThroughTheInnerAdvice(test: TestInfo) {
		val calls = advised.getAndSet(0)
		if (!test.displayName.contains("FailsStartup")) {
			assertThat(calls).`as`("calls through the advice after the lock's").isPositive()
		}
	}

}
