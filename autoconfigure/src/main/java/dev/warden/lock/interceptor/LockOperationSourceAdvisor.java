package dev.warden.lock.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies the {@link LockInterceptor} to every method that {@link LockOperationSource} finds
 * annotated. Its order decides where the lock sits among other advice: it must be lower (outer)
 * than the transaction advisor's, so that a transaction commits before its lock is released.
 */
public final class LockOperationSourceAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient LockOperationSource operations;

	private final transient LockInterceptor interceptor;

	private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return operations.getOperation(method, targetClass) != null;
		}
	};

	/**
	 * @param operations the parsed annotations
	 * @param interceptor the interceptor to apply
	 * @param order the advisor's order
	 */
	public LockOperationSourceAdvisor(LockOperationSource operations, LockInterceptor interceptor, int order) {
		this.operations = operations;
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return pointcut;
	}

	@Override
	public Advice getAdvice() {
		return interceptor;
	}

}
