package dev.warden.ratelimit.interceptor;

import dev.warden.InvalidAnnotationException;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Checks every bean's {@link dev.warden.ratelimit.annotation.RateLimited} annotations as the bean is
 * created, so that an invalid key, rate, wait, fallback or method shape fails startup, naming the
 * bean and the method, rather than the first call.
 */
public final class RateLimitAnnotationValidator implements BeanPostProcessor {

	private final RateLimitOperationSource operations;

	/**
	 * @param operations the parsed annotations
	 */
	public RateLimitAnnotationValidator(RateLimitOperationSource operations) {
		this.operations = operations;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		try {
			operations.validate(targetClass);
		}
		catch (IllegalStateException ex) {
			throw new InvalidAnnotationException("Invalid @RateLimited on bean '" + beanName + "': " + ex.getMessage(),
					ex);
		}
		return bean;
	}

}
