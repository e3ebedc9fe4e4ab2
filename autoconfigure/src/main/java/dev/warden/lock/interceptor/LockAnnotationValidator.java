package dev.warden.lock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;

import dev.warden.InvalidAnnotationException;
import dev.warden.expression.MethodExpressions;
import dev.warden.expression.SuspendFunctions;
import dev.warden.lock.spi.LockedReturnTypeHandler;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Checks every bean's {@link dev.warden.lock.annotation.DistributedLock} annotations as the bean is
 * created, so that an invalid expression or fallback fails startup, naming the bean and the
 * method, rather than the first call.
 * <p>
 * It also refuses a method whose work goes on after the call returns (a Kotlin {@code suspend}
 * function, a {@code Future}, a reactive type) when no {@link LockedReturnTypeHandler} takes it:
 * held for the calling thread, its lock would be released before the work ran.
 */
public final class LockAnnotationValidator implements BeanPostProcessor {

	private static final String[] LATER_TYPE_NAMES = { "org.reactivestreams.Publisher",
			"java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred" };

	private final LockOperationSource operations;

	private final Supplier<List<LockedReturnTypeHandler>> handlers;

	/**
	 * @param operations the parsed annotations
	 * @param handlers the asynchronous return types the interceptor takes; asked for only when a
	 * method completes after its call
	 */
	public LockAnnotationValidator(LockOperationSource operations, Supplier<List<LockedReturnTypeHandler>> handlers) {
		this.operations = operations;
		this.handlers = SingletonSupplier.of(handlers);
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		try {
			operations.validate(targetClass, this::unsupportedShape);
		}
		catch (IllegalStateException ex) {
			throw new InvalidAnnotationException("Invalid @DistributedLock on bean '" + beanName + "': "
					+ ex.getMessage(), ex);
		}
		return bean;
	}

	private @Nullable String unsupportedShape(Method method) {
		String later = completesLater(method);
		if (later == null || handlers.get().stream().anyMatch(handler -> handler.canHandle(method))) {
			return null;
		}
		String where = MethodExpressions.describe(method);
		if (suspendReturnsFlow(method)) {
			return "@DistributedLock on " + where + ": a suspend function returning a Flow is not supported; make it a "
					+ "plain function returning the Flow, whose every collection runs under the lock";
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			return "@DistributedLock on " + where + ": a suspend function's body runs after the call returns, and "
					+ "Warden holds its lock across it only with kotlinx-coroutines-reactor and dev.warden:warden-kotlin "
					+ "on the class path (the starters bring warden-kotlin); without them it would run unlocked";
		}
		return "@DistributedLock on " + where + " " + later + ", which completes after the call returns: its lock "
				+ "would be released before the work is done. Return a CompletableFuture or CompletionStage, a "
				+ "Mono or a Flux, make it a Kotlin suspend function, or register a LockedReturnTypeHandler bean "
				+ "for " + method.getReturnType().getName();
	}

	/**
	 * How {@code method}'s work goes on after its call returns, or {@code null} when it is done when
	 * the call returns.
	 */
	public static @Nullable String completesLater(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			return "is a suspend function";
		}
		Class<?> type = method.getReturnType();
		String returns = "returns " + type.getSimpleName();
		if (type.isPrimitive() || type == Object.class) {
			return null;
		}
		if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)) {
			return returns;
		}
		for (String name : LATER_TYPE_NAMES) {
			if (isA(type, name)) {
				return returns;
			}
		}
		return (ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) ? returns : null;
	}

	/**
	 * Whether {@code method} is a Kotlin suspend function whose declared return type is a
	 * {@code Flow}: a shape no handler takes, as the flow would be collected after the call.
	 * @param method a method
	 * @return whether it is such a function
	 */
	public static boolean suspendReturnsFlow(Method method) {
		return KotlinDetector.isSuspendingFunction(method)
				&& isA(SuspendFunctions.declaredReturnType(method), "kotlinx.coroutines.flow.Flow");
	}

	/**
	 * Whether {@code type} is, or extends, the class of that name, without loading it when absent.
	 * @param type a type
	 * @param name a class name
	 * @return whether the class is present and {@code type} is assignable to it
	 */
	public static boolean isA(Class<?> type, String name) {
		ClassLoader loader = type.getClassLoader();
		if (!ClassUtils.isPresent(name, loader)) {
			return false;
		}
		return ClassUtils.resolveClassName(name, loader).isAssignableFrom(type);
	}

}
