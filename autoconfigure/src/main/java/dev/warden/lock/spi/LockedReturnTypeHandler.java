package dev.warden.lock.spi;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Holds the locks of an annotated method whose return type completes later than the call: the
 * lock must be held until the result completes, by an owner that is not the calling thread.
 * Register one as a bean to support another asynchronous type.
 */
public interface LockedReturnTypeHandler {

	/**
	 * {@return whether this handler takes methods returning {@code returnType}}
	 * @param returnType the method's declared return type
	 */
	boolean canHandleReturnType(Class<?> returnType);

	/**
	 * Whether this handler takes calls of {@code method}; by default, whether it takes its return
	 * type. A handler that takes methods by another trait (Kotlin {@code suspend} functions, whose
	 * return type is {@code Object}) overrides this.
	 * @param method the annotated method
	 * @return whether {@link #handle(LockedCall)} is called for it
	 */
	default boolean canHandle(Method method) {
		return canHandleReturnType(method.getReturnType());
	}

	/**
	 * Runs the call under its locks and returns what the caller receives.
	 * @param call the call
	 * @return the method's result, adapted to release the locks when it completes
	 * @throws Throwable what the method or its fallback throws
	 */
	@Nullable Object handle(LockedCall call) throws Throwable;

}
