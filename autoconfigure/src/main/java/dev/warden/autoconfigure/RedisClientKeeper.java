package dev.warden.autoconfigure;

import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.NativeDetector;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Keeps the application's Lettuce client running while its context is paused (Spring Framework 7's
 * {@code ConfigurableApplicationContext#pause()}, which the test framework applies to a cached
 * context while another is in use). The connection factory's stop shuts its client down and its
 * start makes a new one, while the {@link dev.warden.Warden} client stays bound to the first: after a
 * pause and a restart every call of it would fail with a closed connection. The factory is exposed
 * as a proxy that says it is not pauseable and otherwise calls through; the application's shutdown
 * stops and destroys it as before. Only where a context may be paused by the test framework: on
 * Spring Framework 7 with {@code spring-test} on the class path, outside a native image (which
 * cannot make a proxy class at run time). An application's own production context is never paused
 * by Spring, so its factory is left as it is.
 */
final class RedisClientKeeper implements BeanPostProcessor {

	private static final boolean PAUSING = ClassUtils.hasMethod(SmartLifecycle.class, "isPauseable")
			&& ClassUtils.isPresent("org.springframework.test.context.cache.ContextCache",
					RedisClientKeeper.class.getClassLoader())
			&& !NativeDetector.inNativeImage();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!PAUSING || !(bean instanceof LettuceConnectionFactory)) {
			return bean;
		}
		ProxyFactory proxy = new ProxyFactory(bean);
		proxy.setProxyTargetClass(true);
		proxy.addAdvice((MethodInterceptor) invocation -> {
			if (invocation.getMethod().getName().equals("isPauseable") && invocation.getMethod().getParameterCount() == 0) {
				return false;
			}
			return invocation.proceed();
		});
		return proxy.getProxy(bean.getClass().getClassLoader());
	}

}
