package dev.warden.lock.interceptor;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.warden.WardenDefaults;
import dev.warden.expression.MethodExpressions;
import dev.warden.lock.LockArguments;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.util.ReflectionUtils;

/**
 * Turns {@link DistributedLock} annotations into {@link LockOperation}s, once per method and
 * target class, checking everything that can be checked before the first call.
 */
public final class LockOperationSource {

	private final MethodExpressions expressions;

	private final String keyPrefix;

	private final long defaultWaitMillis;

	private final Map<MethodClassKey, Optional<LockOperation>> operations = new ConcurrentHashMap<>();

	private final Map<Class<?>, Boolean> validatedClasses = new ConcurrentHashMap<>();

	/**
	 * @param expressions the key expression parser
	 * @param keyPrefix prepended to every lock name
	 * @param defaultWaitMillis the wait of annotations that leave it unset
	 */
	public LockOperationSource(MethodExpressions expressions, String keyPrefix, long defaultWaitMillis) {
		this.expressions = expressions;
		this.keyPrefix = keyPrefix;
		this.defaultWaitMillis = defaultWaitMillis;
	}

	/**
	 * The operation of {@code method} when called on {@code targetClass}, or {@code null} when
	 * the method is not annotated.
	 * @throws IllegalStateException naming the method when the annotation is invalid
	 */
	public @Nullable LockOperation getOperation(Method method, Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		return operations.computeIfAbsent(new MethodClassKey(method, targetClass),
				key -> Optional.ofNullable(parse(method, targetClass)))
			.orElse(null);
	}

	/**
	 * Evaluates the operation's keys for one call into sorted, distinct lock names.
	 * @throws IllegalArgumentException when a key evaluates to {@code null} or blank
	 */
	List<String> lockNames(LockOperation operation, Object[] arguments, Object target, Class<?> targetClass) {
		if (operation.keys().isEmpty()) {
			return List.of(operation.name());
		}
		TreeSet<String> names = new TreeSet<>();
		for (int i = 0; i < operation.keys().size(); i++) {
			Object value = expressions.evaluate(operation.keys().get(i), operation.method(), arguments, target,
					targetClass);
			for (Object key : flatten(value)) {
				String text = (key != null) ? key.toString() : null;
				if (text == null || text.isBlank()) {
					throw new IllegalArgumentException("Lock key '" + operation.keyExpressions().get(i) + "' of "
							+ operation.describe() + " evaluated to " + (text == null ? "null" : "a blank string")
							+ "; the method was not called");
				}
				if (LockArguments.hasBrace(text)) {
					throw new IllegalArgumentException("Lock key '" + operation.keyExpressions().get(i) + "' of "
							+ operation.describe() + " evaluated to '" + text + "', which contains '{' or '}'; "
							+ "the method was not called");
				}
				names.add(operation.name() + ":" + text);
			}
		}
		return List.copyOf(names);
	}

	private static List<@Nullable Object> flatten(@Nullable Object value) {
		List<@Nullable Object> keys = new ArrayList<>();
		if (value instanceof Collection<?> collection) {
			keys.addAll(collection);
		}
		else if (value != null && value.getClass().isArray()) {
			for (int i = 0; i < Array.getLength(value); i++) {
				keys.add(Array.get(value, i));
			}
		}
		else {
			keys.add(value);
		}
		if (keys.isEmpty()) {
			keys.add(null);
		}
		return keys;
	}

	/**
	 * Parses every annotated method of a class, so an invalid annotation fails at startup rather
	 * than at its first call.
	 * @throws IllegalStateException describing every invalid annotation of the class
	 */
	public void validate(Class<?> targetClass) {
		validate(targetClass, method -> null);
	}

	/**
	 * Like {@link #validate(Class)}, also asking {@code shapeCheck} about each annotated method.
	 * @param targetClass the class
	 * @param shapeCheck what is wrong with an annotated method's shape (its return type, say), or
	 * {@code null}
	 * @throws IllegalStateException describing every invalid annotation of the class
	 */
	public void validate(Class<?> targetClass, Function<Method, @Nullable String> shapeCheck) {
		if (!AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)
				|| validatedClasses.putIfAbsent(targetClass, Boolean.TRUE) != null) {
			return;
		}
		List<String> problems = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, method -> {
			try {
				LockOperation operation = getOperation(method, targetClass);
				String problem = (operation != null) ? shapeCheck.apply(operation.method()) : null;
				if (problem != null) {
					problems.add(problem);
				}
			}
			catch (IllegalStateException ex) {
				problems.add(ex.getMessage());
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		if (!problems.isEmpty()) {
			throw new IllegalStateException(String.join("; ", problems));
		}
	}

	private @Nullable LockOperation parse(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		if (specific.isSynthetic()) {
			// Compiler-made, such as the static body Kotlin 2 gives an open suspend function, annotations
			// copied: the call goes through the function itself.
			return null;
		}
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null && Modifier.isPublic(specific.getModifiers())) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, DistributedLock.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = MethodExpressions.describe(specific);
		if (Modifier.isStatic(specific.getModifiers())) {
			throw new IllegalStateException("@DistributedLock on static method " + where + " has no effect");
		}
		String name = annotation.name().isBlank()
				? specific.getDeclaringClass().getName() + "." + specific.getName() : annotation.name();
		if (LockArguments.hasBrace(name)) {
			throw new IllegalStateException("@DistributedLock on " + where + " has name '" + name
					+ "' with braces; Warden adds the Redis Cluster hash tags its keys need");
		}
		List<Expression> keys = new ArrayList<>();
		for (String key : annotation.key()) {
			keys.add(expressions.parse(specific, targetClass, key));
		}
		long waitMillis = waitMillis(annotation, where);
		long leaseMillis = leaseMillis(annotation, where);
		OnLockFailure onFailure = annotation.onFailure();
		FallbackMethod fallback = null;
		if (onFailure == OnLockFailure.FALLBACK) {
			if (annotation.fallbackMethod().isBlank()) {
				throw new IllegalStateException("@DistributedLock on " + where
						+ " has onFailure = FALLBACK but no fallbackMethod");
			}
			fallback = FallbackMethod.resolve(specific, targetClass, annotation.fallbackMethod());
		}
		else if (!annotation.fallbackMethod().isBlank()) {
			throw new IllegalStateException("@DistributedLock on " + where + " names fallbackMethod '"
					+ annotation.fallbackMethod() + "' but onFailure is " + onFailure + "; use onFailure = FALLBACK");
		}
		if (onFailure == OnLockFailure.SKIP && specific.getReturnType().isPrimitive()
				&& specific.getReturnType() != void.class) {
			throw new IllegalStateException("@DistributedLock on " + where + " has onFailure = SKIP but returns "
					+ specific.getReturnType() + ", which cannot be skipped (null); return a wrapper type or "
					+ "use THROW or FALLBACK");
		}
		return new LockOperation(specific, annotation.type(), keyPrefix + name, List.of(annotation.key()),
				List.copyOf(keys), waitMillis, leaseMillis, onFailure, fallback, annotation.fencingToken(),
				holdAtLeastMillis(annotation, where), name);
	}

	private long waitMillis(DistributedLock annotation, String where) {
		if (annotation.waitTime() == -1) {
			return defaultWaitMillis;
		}
		if (annotation.waitTime() < 0) {
			throw new IllegalStateException("@DistributedLock on " + where + " has a negative waitTime: "
					+ annotation.waitTime() + " (-1 uses warden.lock.default-wait-time)");
		}
		return annotation.timeUnit().toMillis(annotation.waitTime());
	}

	private long holdAtLeastMillis(DistributedLock annotation, String where) {
		long millis = annotation.timeUnit().toMillis(annotation.holdAtLeast());
		if (annotation.holdAtLeast() < 0 || millis > WardenDefaults.MAX_LEASE.toMillis()) {
			throw new IllegalStateException("@DistributedLock on " + where + " has holdAtLeast "
					+ annotation.holdAtLeast() + " " + annotation.timeUnit() + "; it must be zero or positive, and at most "
					+ WardenDefaults.MAX_LEASE.toDays() + " days");
		}
		return millis;
	}

	private long leaseMillis(DistributedLock annotation, String where) {
		if (annotation.leaseTime() == -1) {
			return LockOperation.WATCHDOG_LEASE;
		}
		long millis = annotation.timeUnit().toMillis(annotation.leaseTime());
		if (annotation.leaseTime() <= 0 || millis == 0 || millis > WardenDefaults.MAX_LEASE.toMillis()) {
			throw new IllegalStateException("@DistributedLock on " + where + " has leaseTime " + annotation.leaseTime()
					+ " " + annotation.timeUnit() + "; a lease must be from 1 ms to " + WardenDefaults.MAX_LEASE.toDays()
					+ " days (-1 uses the watchdog)");
		}
		return annotation.timeUnit().toMillis(annotation.leaseTime());
	}

}
