package dev.warden.lock.interceptor;

import dev.warden.InvalidAnnotationException;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Checks every bean's {@link dev.warden.lock.annotation.DistributedLock} annotations as the bean is
 * created, so that an invalid expression or fallback fails startup, naming the bean and the
 * method, rather than the first call.
 */
public final class LockAnnotationValidator implements BeanPostProcessor {

	private final LockOperationSource operations;

	public LockAnnotationValidator(LockOperationSource operations) {
		this.operations = operations;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		try {
			operations.validate(targetClass);
		}
		catch (IllegalStateException ex) {
			throw new InvalidAnnotationException("Invalid @DistributedLock on bean '" + beanName + "': "
					+ ex.getMessage(), ex);
		}
		return bean;
	}

}
