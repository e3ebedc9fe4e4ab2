package dev.warden.lock.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import dev.warden.expression.MethodExpressions;
import dev.warden.lock.LockAcquisitionException;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The method called instead of an annotated one whose lock was not acquired: same bean, same
 * parameters, optionally followed by one parameter that accepts the
 * {@link LockAcquisitionException}.
 */
public final class FallbackMethod {

	private final Method method;

	private final boolean takesException;

	private FallbackMethod(Method method, boolean takesException) {
		this.method = method;
		this.takesException = takesException;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Finds the fallback of {@code annotated} in {@code targetClass}.
	 * @throws IllegalStateException naming both methods when there is no method of that name with a
	 * matching signature and return type
	 */
	static FallbackMethod resolve(Method annotated, Class<?> targetClass, String name) {
		Class<?>[] parameters = annotated.getParameterTypes();
		Class<?>[] withException = Arrays.copyOf(parameters, parameters.length + 1);
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(targetClass)) {
			if (!candidate.getName().equals(name)) {
				continue;
			}
			Class<?>[] types = candidate.getParameterTypes();
			boolean same = Arrays.equals(types, parameters);
			boolean plusException = types.length == withException.length
					&& Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
					&& types[parameters.length].isAssignableFrom(LockAcquisitionException.class);
			if ((same || plusException) && returnsCompatible(candidate, annotated)) {
				return new FallbackMethod(candidate, plusException);
			}
		}
		throw new IllegalStateException("Fallback method '" + name + "' of " + MethodExpressions.describe(annotated)
				+ " not found: expected a method " + name + "(" + simpleNames(parameters) + ") or " + name + "("
				+ simpleNames(parameters) + (parameters.length > 0 ? ", " : "") + "LockAcquisitionException) in "
				+ targetClass.getName() + " returning " + annotated.getReturnType().getSimpleName());
	}

	/** Calls the fallback on {@code target} with the annotated method's arguments. */
	Object invoke(Object target, Object[] arguments, LockAcquisitionException failure) throws Throwable {
		Object[] actual = arguments;
		if (takesException) {
			actual = Arrays.copyOf(arguments, arguments.length + 1);
			actual[arguments.length] = failure;
		}
		try {
			return method.invoke(target, actual);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@Override
	public String toString() {
		return method.toString();
	}

	private static boolean returnsCompatible(Method fallback, Method annotated) {
		Class<?> expected = annotated.getReturnType();
		if (expected == void.class) {
			return fallback.getReturnType() == void.class;
		}
		return ClassUtils.isAssignable(expected, fallback.getReturnType());
	}

	private static String simpleNames(Class<?>[] types) {
		return String.join(", ", Arrays.stream(types).map(Class::getSimpleName).toList());
	}

}
