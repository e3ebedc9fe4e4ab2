package dev.warden.ratelimit.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import dev.warden.expression.MethodExpressions;
import dev.warden.expression.SuspendFunctions;
import dev.warden.lock.LockArguments;
import dev.warden.lock.interceptor.FallbackMethod;
import dev.warden.lock.interceptor.LockAnnotationValidator;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.RateLimitExceededException;
import dev.warden.ratelimit.annotation.OnRateLimit;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.ratelimit.interceptor.RateLimitOperation.Shape;
import dev.warden.task.interceptor.AnnotationDurations;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ReflectionUtils;

/**
 * Turns {@link RateLimited} annotations into {@link RateLimitOperation}s, once per method and
 * target class, checking everything that can be checked before the first call: the keys, the rate
 * (placeholders resolved), the wait, the fallback and the method's shape.
 */
public final class RateLimitOperationSource {

	private final MethodExpressions expressions;

	private final PropertyResolver placeholders;

	private final Map<MethodClassKey, Optional<RateLimitOperation>> operations = new ConcurrentHashMap<>();

	private final Map<Class<?>, Boolean> validatedClasses = new ConcurrentHashMap<>();

	/**
	 * @param expressions the key expression parser
	 * @param placeholders resolves {@code ${...}} in the rate, the period, the burst and the wait
	 */
	public RateLimitOperationSource(MethodExpressions expressions, PropertyResolver placeholders) {
		this.expressions = expressions;
		this.placeholders = placeholders;
	}

	/**
	 * The operation of {@code method} when called on {@code targetClass}, or {@code null} when the
	 * method is not annotated.
	 * @throws IllegalStateException naming the method when the annotation is invalid
	 */
	public @Nullable RateLimitOperation getOperation(Method method, Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		return operations.computeIfAbsent(new MethodClassKey(method, targetClass),
				key -> Optional.ofNullable(parse(method, targetClass)))
			.orElse(null);
	}

	/** Every annotated method parsed so far (every bean's, once the application has started). */
	public List<RateLimitOperation> operations() {
		return operations.values().stream().flatMap(Optional::stream).toList();
	}

	/**
	 * Parses every annotated method of a class, so that an invalid annotation fails startup.
	 * @throws IllegalStateException describing every invalid annotation of the class
	 */
	public void validate(Class<?> targetClass) {
		if (!AnnotationUtils.isCandidateClass(targetClass, RateLimited.class)
				|| validatedClasses.putIfAbsent(targetClass, Boolean.TRUE) != null) {
			return;
		}
		List<String> problems = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, method -> {
			try {
				getOperation(method, targetClass);
			}
			catch (IllegalStateException ex) {
				problems.add(ex.getMessage());
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		if (!problems.isEmpty()) {
			throw new IllegalStateException(String.join("; ", problems));
		}
	}

	/**
	 * The limiter's name for one call: the name, then {@code ":" + key} for each key.
	 * @throws IllegalArgumentException when a key evaluates to {@code null}, blank, or a text with braces
	 */
	String limiterName(RateLimitOperation operation, Object[] arguments, Object target, Class<?> targetClass) {
		if (operation.keys().isEmpty()) {
			return operation.name();
		}
		StringBuilder name = new StringBuilder(operation.name());
		for (int i = 0; i < operation.keys().size(); i++) {
			Object value = expressions.evaluate(operation.keys().get(i), operation.method(), arguments, target,
					targetClass);
			String text = (value != null) ? value.toString() : null;
			if (text == null || text.isBlank() || LockArguments.hasBrace(text)) {
				throw new IllegalArgumentException("Rate limit key '" + operation.keyExpressions().get(i) + "' of "
						+ operation.describe() + " evaluated to " + ((text == null) ? "null"
								: text.isBlank() ? "a blank string" : "'" + text + "', which contains '{' or '}'")
						+ "; the method was not called");
			}
			name.append(':').append(text);
		}
		return name.toString();
	}

	private @Nullable RateLimitOperation parse(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		if (specific.isSynthetic()) {
			// Compiler-made, such as the static body Kotlin 2 gives an open suspend function, annotations
			// copied: the call goes through the function itself.
			return null;
		}
		RateLimited annotation = AnnotatedElementUtils.findMergedAnnotation(specific, RateLimited.class);
		if (annotation == null && Modifier.isPublic(specific.getModifiers())) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, RateLimited.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = "@RateLimited on " + MethodExpressions.describe(specific);
		if (Modifier.isStatic(specific.getModifiers())) {
			throw new IllegalStateException(where + ": a static method has no proxy to limit it");
		}
		String name = annotation.name().isBlank()
				? specific.getDeclaringClass().getName() + "." + specific.getName() : annotation.name();
		if (LockArguments.hasBrace(name)) {
			throw new IllegalStateException(where + " has name '" + name
					+ "' with braces; Warden adds the Redis Cluster hash tag its key needs");
		}
		List<Expression> keys = new ArrayList<>();
		for (String key : annotation.key()) {
			keys.add(expressions.parse(specific, targetClass, key));
		}
		RateLimit limit = limit(annotation, where);
		if (annotation.cost() < 1 || annotation.cost() > limit.burst()) {
			throw new IllegalStateException(where + " has cost " + annotation.cost() + "; a call takes from 1 to "
					+ limit.burst() + " permits (the burst)");
		}
		Duration waitTime = AnnotationDurations.parse(placeholders, where, "waitTime", annotation.waitTime());
		if (waitTime.isNegative()) {
			throw new IllegalStateException(where + " has a negative waitTime: " + annotation.waitTime());
		}
		OnRateLimit onLimit = annotation.onLimit();
		FallbackMethod fallback = null;
		if (onLimit == OnRateLimit.FALLBACK) {
			if (annotation.fallbackMethod().isBlank()) {
				throw new IllegalStateException(where + " has onLimit = FALLBACK but no fallbackMethod");
			}
			fallback = FallbackMethod.resolve(specific, targetClass, annotation.fallbackMethod(),
					RateLimitExceededException.class);
		}
		else if (!annotation.fallbackMethod().isBlank()) {
			throw new IllegalStateException(where + " names fallbackMethod '" + annotation.fallbackMethod()
					+ "' but onLimit is " + onLimit + "; use onLimit = FALLBACK");
		}
		Class<?> returnType = specific.getReturnType();
		if (onLimit == OnRateLimit.SKIP && KotlinDetector.isSuspendingFunction(specific)) {
			Class<?> declared = SuspendFunctions.declaredReturnType(specific);
			if (!"kotlin.Unit".equals(declared.getName()) && declared != void.class
					&& !new MethodParameter(specific, -1).isOptional()) {
				throw new IllegalStateException(where + " has onLimit = SKIP but returns a non-null "
						+ declared.getSimpleName() + ", which cannot be skipped (null); declare it nullable or use "
						+ "THROW or FALLBACK");
			}
		}
		if (onLimit == OnRateLimit.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw new IllegalStateException(where + " has onLimit = SKIP but returns " + returnType
					+ ", which cannot be skipped (null); return a wrapper type or use THROW or FALLBACK");
		}
		return new RateLimitOperation(specific, name, List.of(annotation.key()), List.copyOf(keys), limit,
				annotation.cost(), waitTime, onLimit, fallback, shape(specific, where));
	}

	private RateLimit limit(RateLimited annotation, String where) {
		long permits = number(annotation.permits(), where, "permits");
		Duration period = AnnotationDurations.parse(placeholders, where, "period", annotation.period());
		long burst = annotation.burst().isBlank() ? permits : number(annotation.burst(), where, "burst");
		try {
			return new RateLimit(permits, period, burst);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + ": " + ex.getMessage(), ex);
		}
	}

	private long number(String text, String where, String attribute) {
		String resolved;
		try {
			resolved = placeholders.resolveRequiredPlaceholders(text).trim();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + text + "': " + ex.getMessage(), ex);
		}
		try {
			return Long.parseLong(resolved);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + text + "'"
					+ (resolved.equals(text) ? "" : " ('" + resolved + "')") + ", which is not a whole number", ex);
		}
	}

	private static Shape shape(Method method, String where) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (LockAnnotationValidator.suspendReturnsFlow(method)) {
				throw new IllegalStateException(where + " is a suspend function returning a Flow, whose work goes on "
						+ "after it returns; limit a function returning the Flow without suspend, or the Flow's source");
			}
			return Shape.SUSPEND;
		}
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			return Shape.STAGE;
		}
		if (LockAnnotationValidator.isA(returnType, "reactor.core.publisher.Mono")) {
			return Shape.MONO;
		}
		if (LockAnnotationValidator.isA(returnType, "reactor.core.publisher.Flux")) {
			return Shape.FLUX;
		}
		if (LockAnnotationValidator.completesLater(method) != null) {
			throw new IllegalStateException(where + " returns " + returnType.getName() + ", whose work goes on "
					+ "after the call; Warden limits plain, CompletionStage, Mono and Flux methods");
		}
		return Shape.PLAIN;
	}

}
