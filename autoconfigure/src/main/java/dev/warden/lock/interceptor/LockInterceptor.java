package dev.warden.lock.interceptor;

import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The AOP Alliance interceptor for {@link dev.warden.lock.annotation.DistributedLock} methods; the
 * decisions are {@link LockAspectSupport}'s.
 */
public final class LockInterceptor implements MethodInterceptor {

	private final Supplier<LockAspectSupport> support;

	/**
	 * @param support supplies the support class; called at the first call, so the interceptor can
	 * be created before the {@link dev.warden.Warden} client it needs
	 */
	public LockInterceptor(Supplier<LockAspectSupport> support) {
		this.support = support;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		return support.get().execute(invocation);
	}

}
