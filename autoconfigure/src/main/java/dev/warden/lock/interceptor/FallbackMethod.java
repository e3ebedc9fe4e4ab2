package dev.warden.lock.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import dev.warden.expression.MethodExpressions;
import dev.warden.lock.LockAcquisitionException;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The method called instead of an annotated one whose lock was not acquired (or whose rate limit
 * had no permit left): same bean, same parameters, optionally followed by one parameter that
 * accepts the {@link LockAcquisitionException} (or the rate limit's exception). The fallback of a Kotlin {@code suspend} function is a
 * {@code suspend} function too (the exception, when taken, comes last before the continuation).
 */
public final class FallbackMethod {

	private final Method method;

	private final boolean takesException;

	private final boolean suspending;

	private FallbackMethod(Method method, boolean takesException, boolean suspending) {
		this.method = method;
		this.takesException = takesException;
		this.suspending = suspending;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Finds the fallback of {@code annotated} in {@code targetClass}.
	 * @throws IllegalStateException naming both methods when there is no method of that name with a
	 * matching signature and return type
	 */
	static FallbackMethod resolve(Method annotated, Class<?> targetClass, String name) {
		return resolve(annotated, targetClass, name, LockAcquisitionException.class);
	}

	/**
	 * Finds the fallback of {@code annotated} in {@code targetClass}, whose optional last parameter
	 * accepts {@code failureType}.
	 * @throws IllegalStateException naming both methods when there is no method of that name with a
	 * matching signature and return type
	 */
	public static FallbackMethod resolve(Method annotated, Class<?> targetClass, String name,
			Class<? extends Throwable> failureType) {
		boolean suspending = KotlinDetector.isSuspendingFunction(annotated);
		Class<?>[] parameters = declaredParameters(annotated, suspending);
		Class<?>[] withException = Arrays.copyOf(parameters, parameters.length + 1);
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(targetClass)) {
			if (!candidate.getName().equals(name) || KotlinDetector.isSuspendingFunction(candidate) != suspending) {
				continue;
			}
			Class<?>[] types = declaredParameters(candidate, suspending);
			boolean same = Arrays.equals(types, parameters);
			boolean plusException = types.length == withException.length
					&& Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
					&& types[parameters.length].isAssignableFrom(failureType);
			if ((same || plusException) && returnsCompatible(candidate, annotated)) {
				return new FallbackMethod(candidate, plusException, suspending);
			}
		}
		String kind = suspending ? "a suspend function " : "a method ";
		throw new IllegalStateException("Fallback method '" + name + "' of " + MethodExpressions.describe(annotated)
				+ " not found: expected " + kind + name + "(" + simpleNames(parameters) + ") or " + name + "("
				+ simpleNames(parameters) + (parameters.length > 0 ? ", " : "") + failureType.getSimpleName() + ") in "
				+ targetClass.getName() + (suspending ? "" : " returning " + annotated.getReturnType().getSimpleName()));
	}

	/** The parameters as declared: a suspend function's continuation left out. */
	private static Class<?>[] declaredParameters(Method method, boolean suspending) {
		Class<?>[] types = method.getParameterTypes();
		return suspending ? Arrays.copyOf(types, types.length - 1) : types;
	}

	/**
	 * Calls the fallback on {@code target} with the annotated method's arguments. A {@code suspend}
	 * fallback is started as Spring starts one (a {@code Publisher} of its result) in the context of
	 * the continuation among the arguments, without its {@code Job}: the caller awaits the result.
	 */
	public @Nullable Object invoke(Object target, @Nullable Object[] arguments, Throwable failure) throws Throwable {
		@Nullable Object[] actual = arguments;
		if (takesException) {
			int at = suspending ? arguments.length - 1 : arguments.length;
			actual = new Object[arguments.length + 1];
			System.arraycopy(arguments, 0, actual, 0, at);
			actual[at] = failure;
			System.arraycopy(arguments, at, actual, at + 1, arguments.length - at);
		}
		if (suspending) {
			return KotlinDelegate.invoke(method, target, actual);
		}
		try {
			return method.invoke(target, actual);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/** Kept apart so that the Kotlin types are loaded only for a {@code suspend} fallback. */
	private static final class KotlinDelegate {

		/** kotlinx.coroutines' {@code Job.Key}, read once: Warden has no compile dependency on it. */
		private static final CoroutineContext.@Nullable Key<?> JOB = jobKey();

		static Object invoke(Method method, Object target, @Nullable Object[] arguments) {
			Continuation<?> continuation = (Continuation<?>) arguments[arguments.length - 1];
			CoroutineContext context = continuation.getContext();
			// A Mono's coroutine may not hold a Job: its lifecycle is its subscription's.
			return CoroutinesUtils.invokeSuspendingFunction((JOB != null) ? context.minusKey(JOB) : context, method,
					target, arguments);
		}

		private static CoroutineContext.@Nullable Key<?> jobKey() {
			try {
				return (CoroutineContext.Key<?>) Class
					.forName("kotlinx.coroutines.Job", false, FallbackMethod.class.getClassLoader())
					.getField("Key")
					.get(null);
			}
			catch (ReflectiveOperationException | LinkageError ex) {
				return null;
			}
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
