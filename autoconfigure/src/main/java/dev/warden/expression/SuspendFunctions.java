package dev.warden.expression;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;

/**
 * Kotlin {@code suspend} functions as Java reflection sees them: a trailing {@code Continuation}
 * parameter, and {@code Object} as the return type. Needs no Kotlin library.
 */
public final class SuspendFunctions {

	private SuspendFunctions() {
	}

	/**
	 * The return type a suspend function declares ({@code Unit}, {@code TaskHandle}, {@code Flow}...):
	 * its continuation's type argument, {@code Continuation<? super T>}.
	 * @param method a suspend function
	 * @return the declared return type, or {@code Object} when it cannot be told
	 */
	public static Class<?> declaredReturnType(Method method) {
		if (!KotlinDetector.isSuspendingFunction(method)) {
			throw new IllegalArgumentException(method + " is not a suspend function");
		}
		Type[] parameters = method.getGenericParameterTypes();
		if (!(parameters[parameters.length - 1] instanceof ParameterizedType continuation)) {
			return Object.class;
		}
		Type returned = continuation.getActualTypeArguments()[0];
		if (returned instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
			returned = wildcard.getLowerBounds()[0];
		}
		return ResolvableType.forType(returned).resolve(Object.class);
	}

}
