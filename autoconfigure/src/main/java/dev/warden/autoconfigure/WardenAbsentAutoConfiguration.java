package dev.warden.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Warden;
import dev.warden.expression.MethodExpressions;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.task.annotation.DelayedTask;
import org.aopalliance.intercept.MethodInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What Warden's annotations do when the application has no Warden client: {@code warden.enabled}
 * is {@code false}, or there is no Lettuce connection factory to build one on.
 * <ul>
 * <li>A {@code @DelayedTask} method fails when called, with an {@link IllegalStateException} that
 * says why, and does not run: running it at once would do now what was meant for later (close an
 * order at its creation instead of when it is still unpaid 30 minutes on).</li>
 * <li>A {@code @DistributedLock} method runs without a lock, and a {@code @RateLimited} one without a
 * limit, which is what switching Warden off asks for (a test or a local run without Redis).</li>
 * </ul>
 * One WARN line at startup says so, with how many annotated methods each rule touches.
 */
@AutoConfiguration(after = { WardenAutoConfiguration.class, WardenLockAutoConfiguration.class,
		WardenTaskAutoConfiguration.class })
@ConditionalOnClass(Advisor.class)
@ConditionalOnMissingBean(Warden.class)
public final class WardenAbsentAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(WardenAbsentAutoConfiguration.class);

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static Advisor wardenAbsentDelayedTaskAdvisor(Environment environment) {
		String reason = reason(environment);
		MethodInterceptor refuse = invocation -> {
			throw new IllegalStateException("Cannot schedule " + MethodExpressions.describe(invocation.getMethod())
					+ ": " + reason + "; a @DelayedTask method is not run in its place, since it would do now what "
					+ "it was meant to do later. Nothing was run.");
		};
		StaticMethodMatcherPointcutAdvisor advisor = new StaticMethodMatcherPointcutAdvisor(refuse) {
			@Override
			public boolean matches(Method method, Class<?> targetClass) {
				return isDelayedTask(AopUtils.getMostSpecificMethod(method, targetClass));
			}
		};
		advisor.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return advisor;
	}

	@Bean
	static AbsenceReport wardenAbsenceReport(Environment environment) {
		return new AbsenceReport(reason(environment));
	}

	private static String reason(Environment environment) {
		return Boolean.FALSE.equals(environment.getProperty("warden.enabled", Boolean.class))
				? "Warden is switched off (warden.enabled=false)"
				: "there is no Warden client (Warden needs a Lettuce RedisConnectionFactory: spring-boot-data-redis "
						+ "with spring.data.redis.client-type=lettuce, the default)";
	}

	private static boolean isDelayedTask(Method method) {
		return AnnotatedElementUtils.hasAnnotation(method, DelayedTask.class);
	}

	/** Counts the annotated methods of the application's beans and says once what becomes of them. */
	static final class AbsenceReport implements BeanPostProcessor, SmartInitializingSingleton {

		private final String reason;

		private final AtomicInteger lockedMethods = new AtomicInteger();

		private final AtomicInteger delayedTasks = new AtomicInteger();

		private final AtomicInteger limitedMethods = new AtomicInteger();

		AbsenceReport(String reason) {
			this.reason = reason;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			Class<?> type = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
			boolean lockedType = AnnotatedElementUtils.hasAnnotation(type, DistributedLock.class);
			boolean limitedType = AnnotatedElementUtils.hasAnnotation(type, RateLimited.class);
			ReflectionUtils.doWithMethods(type, method -> {
				if ((limitedType && Modifier.isPublic(method.getModifiers()))
						|| AnnotatedElementUtils.hasAnnotation(method, RateLimited.class)) {
					limitedMethods.incrementAndGet();
				}
				if ((lockedType && Modifier.isPublic(method.getModifiers()))
						|| AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
					lockedMethods.incrementAndGet();
				}
				if (isDelayedTask(method)) {
					delayedTasks.incrementAndGet();
				}
			}, method -> !method.isSynthetic() && method.getDeclaringClass() != Object.class);
			return bean;
		}

		@Override
		public void afterSingletonsInstantiated() {
			if (lockedMethods.get() > 0 || delayedTasks.get() > 0 || limitedMethods.get() > 0) {
				logger.warn("{}: {} @DistributedLock method(s) run without a lock, {} @RateLimited method(s) without a "
						+ "rate limit, and {} @DelayedTask method(s) fail when called instead of scheduling a task", reason,
						lockedMethods.get(), limitedMethods.get(), delayedTasks.get());
			}
		}

	}

}
