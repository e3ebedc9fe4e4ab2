package dev.warden.lock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.warden.lock.DistributedMutex;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.LockFactory;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockLostException;
import dev.warden.lock.LockOwner;
import dev.warden.lock.annotation.LockContext;
import dev.warden.lock.annotation.LockType;
import dev.warden.lock.annotation.OnLockFailure;
import dev.warden.lock.spi.LockSet;
import dev.warden.lock.spi.LockedCall;
import dev.warden.lock.spi.LockedReturnTypeHandler;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Advisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;

/**
 * Decides what happens around a call of a {@link dev.warden.lock.annotation.DistributedLock}
 * method: evaluates its lock names, hands asynchronous return types to their
 * {@link LockedReturnTypeHandler}, and otherwise holds the locks for the calling thread around
 * the call.
 */
public final class LockAspectSupport {

	private static final Logger logger = LoggerFactory.getLogger(LockAspectSupport.class);

	private final LockFactory lockFactory;

	private final LockListener listener;

	private final LockOperationSource operations;

	private final List<LockedReturnTypeHandler> handlers;

	private final boolean failOnLostLease;

	private final LockCalls calls;

	/** Whether the lock advice is the last one of a method's chain, by method and proxy class. */
	private final Map<MethodClassKey, Boolean> lastAdvice = new ConcurrentHashMap<>();

	/**
	 * @param locks where the locks come from
	 * @param listener told about fixed leases that ran out while their method ran
	 * @param operations the parsed annotations, which also evaluate lock keys
	 * @param handlers the asynchronous return types, in order of precedence
	 * @param failOnLostLease whether a lock lost while a method ran fails the call with
	 * {@link LockLostException} after the method returned (it is logged either way)
	 * @param calls counts the calls' waits and holds
	 */
	public LockAspectSupport(LockFactory locks, LockListener listener, LockOperationSource operations,
			List<LockedReturnTypeHandler> handlers, boolean failOnLostLease, LockCalls calls) {
		this.lockFactory = locks;
		this.calls = calls;
		this.listener = listener;
		this.operations = operations;
		this.failOnLostLease = failOnLostLease;
		this.handlers = List.copyOf(handlers);
	}

	private DistributedMutex lockOf(LockType type, String name) {
		return switch (type) {
			case REENTRANT -> lockFactory.getLock(name);
			case SIMPLE -> lockFactory.getSimpleLock(name);
			case FAIR -> lockFactory.getFairLock(name);
			case READ -> lockFactory.getReadWriteLock(name).readLock();
			case WRITE -> lockFactory.getReadWriteLock(name).writeLock();
		};
	}

	/** Runs {@code invocation} under its locks, or as it is when its method is not annotated. */
	public @Nullable Object execute(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
		LockOperation operation = operations.getOperation(invocation.getMethod(), targetClass);
		if (operation == null || target == null) {
			return invocation.proceed();
		}
		List<String> names = operations.lockNames(operation, invocation.getArguments(), target, targetClass);
		Call call = new Call(invocation, operation, target, names);
		for (LockedReturnTypeHandler handler : handlers) {
			if (handler.canHandle(operation.method())) {
				return handler.handle(call);
			}
		}
		return executeOnThread(call);
	}

	private @Nullable Object executeOnThread(Call call) throws Throwable {
		// A minimum hold outlives the call: it belongs to a fresh owner, which no later call re-enters.
		LockSet locks = call.lockSet(
				(call.operation.holdAtLeastMillis() > 0) ? lockFactory.newOwner() : lockFactory.currentThreadOwner());
		Map<String, Long> tokens;
		try {
			// Only a call that asks for tokens writes to a fencing counter.
			tokens = call.operation.fencingToken() ? locks.acquireWithTokens() : (locks.acquire() ? Map.of() : null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(locks.names(), call.operation.waitMillis(), ex);
		}
		if (tokens == null) {
			LockAcquisitionException failure = locks.failure();
			return switch (call.onFailure()) {
				case THROW -> throw failure;
				case SKIP -> skipped(call.method().getReturnType());
				case FALLBACK -> call.fallback(failure);
			};
		}
		Object result;
		try (LockContext.Scope scope = LockContext.open(tokens)) {
			result = call.proceed();
		}
		catch (Throwable ex) {
			try {
				locks.release();
			}
			catch (RuntimeException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
		try {
			locks.release();
		}
		catch (IllegalMonitorStateException lost) {
			RuntimeException failure = reportLost(call, locks, lost);
			if (failure != null) {
				throw failure;
			}
		}
		return result;
	}

	private @Nullable RuntimeException reportLost(Call call, LockSet locks, IllegalMonitorStateException lost) {
		String method = call.operation.describe();
		logger.warn("Lock(s) {} held by {} were lost before it returned (lease expired or force-unlocked): its work "
				+ "was not protected for all of its run", locks.names(), method);
		if (call.operation.leaseMillis() != LockOperation.WATCHDOG_LEASE) {
			// A watchdog-held lock was reported by the watchdog when it found it gone.
			for (String name : locks.names()) {
				try {
					listener.onLeaseLost(name, locks.owner(), lost);
				}
				catch (RuntimeException ex) {
					logger.warn("Lock listener failed on the lost lease of '{}'", name, ex);
				}
			}
		}
		return failOnLostLease ? new LockLostException(method, locks.names(), lost) : null;
	}

	/** Whether no advisor after the lock interceptor's applies to {@code method}. */
	private static boolean noAdviceAfterLocks(Advisor[] advisors, Method method, Class<?> targetClass) {
		boolean after = false;
		for (Advisor advisor : advisors) {
			if (!after) {
				after = advisor.getAdvice() instanceof LockInterceptor;
				continue;
			}
			if (!(advisor instanceof PointcutAdvisor pointcutAdvisor)) {
				return false;
			}
			Pointcut pointcut = pointcutAdvisor.getPointcut();
			if (pointcut.getClassFilter().matches(targetClass) && pointcut.getMethodMatcher().matches(method, targetClass)) {
				return false;
			}
		}
		return after;
	}

	private static @Nullable Object skipped(Class<?> returnType) {
		return (returnType == Optional.class) ? Optional.empty() : null;
	}

	private final class Call implements LockedCall {

		private final MethodInvocation invocation;

		private final LockOperation operation;

		private final Object target;

		private final List<String> names;

		Call(MethodInvocation invocation, LockOperation operation, Object target, List<String> names) {
			this.invocation = invocation;
			this.operation = operation;
			this.target = target;
			this.names = names;
		}

		LockSet lockSet(LockOwner owner) {
			return new DefaultLockSet(names, name -> lockOf(operation.type(), name), owner, operation, calls);
		}

		@Override
		public Method method() {
			return operation.method();
		}

		@Override
		public @Nullable Object proceed() throws Throwable {
			return invocation.proceed();
		}

		@Override
		public @Nullable Object[] arguments() {
			return invocation.getArguments();
		}

		@Override
		public @Nullable Object proceed(@Nullable Object[] arguments) throws Throwable {
			if (!(invocation instanceof ProxyMethodInvocation proxied)) {
				throw new IllegalStateException("Cannot pass other arguments to " + invocation);
			}
			proxied.setArguments(arguments);
			return invocation.proceed();
		}

		@Override
		public Object target() {
			return target;
		}

		@Override
		public boolean lastAdvice() {
			if (!(invocation instanceof ProxyMethodInvocation proxied) || !(proxied.getProxy() instanceof Advised advised)) {
				return false;
			}
			Method method = invocation.getMethod();
			Class<?> targetClass = AopUtils.getTargetClass(target);
			return lastAdvice.computeIfAbsent(new MethodClassKey(method, proxied.getProxy().getClass()),
					key -> noAdviceAfterLocks(advised.getAdvisors(), method, targetClass));
		}

		@Override
		public LockSet newLockSet() {
			return lockSet(lockFactory.newOwner());
		}

		@Override
		public LockSet newLockSet(LockOwner owner) {
			return (operation.holdAtLeastMillis() > 0) ? newLockSet() : lockSet(owner);
		}

		@Override
		public boolean fencingToken() {
			return operation.fencingToken();
		}

		@Override
		public @Nullable RuntimeException leaseLost(LockSet locks, IllegalMonitorStateException lost) {
			return reportLost(this, locks, lost);
		}

		@Override
		public OnLockFailure onFailure() {
			return operation.onFailure();
		}

		@Override
		public @Nullable Object fallback(LockAcquisitionException failure) throws Throwable {
			return fallback(invocation.getArguments(), failure);
		}

		@Override
		public @Nullable Object fallback(@Nullable Object[] arguments, LockAcquisitionException failure)
				throws Throwable {
			FallbackMethod fallback = operation.fallback();
			if (fallback == null) {
				throw failure;
			}
			return fallback.invoke(target, arguments, failure);
		}

	}

}
