package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * The advisor that turns calls of {@link dev.warden.task.annotation.DelayedTask} methods into
 * scheduled tasks. It sits outside other advice: scheduling runs none of it, a delivery all of it.
 */
public final class DelayedTaskInterceptor extends AbstractPointcutAdvisor implements MethodInterceptor {

	private static final long serialVersionUID = 1L;

	private final transient DelayedTaskOperationSource operations;

	private final transient Supplier<DelayedTaskSupport> support;

	private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return operations.getOperation(method, targetClass) != null;
		}
	};

	/**
	 * @param operations the parsed annotations
	 * @param support supplies the support class at the first call
	 * @param order the advisor's order
	 */
	public DelayedTaskInterceptor(DelayedTaskOperationSource operations, Supplier<DelayedTaskSupport> support,
			int order) {
		this.operations = operations;
		this.support = support;
		setOrder(order);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		return support.get().execute(invocation);
	}

	@Override
	public Pointcut getPointcut() {
		return pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this;
	}

}
