package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.warden.expression.MethodExpressions;
import dev.warden.expression.SuspendFunctions;
import dev.warden.json.JsonBinding;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.TaskHandle;
import dev.warden.task.TaskLimits;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.TaskLimit;
import dev.warden.task.annotation.TaskUpgrade;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Turns {@link DelayedTask} annotations into {@link DelayedTaskOperation}s, once per method and
 * target class, checking everything that can be checked before the first call.
 */
public final class DelayedTaskOperationSource {

	private final MethodExpressions expressions;

	private final PropertyResolver placeholders;

	private final Supplier<JsonBinding> json;

	private final Function<String, ConsumerOptions> defaults;

	private final Map<MethodClassKey, Optional<DelayedTaskOperation>> operations = new ConcurrentHashMap<>();

	/**
	 * @param expressions parses task id expressions
	 * @param placeholders resolves {@code ${...}} in delays and backoffs
	 * @param json the JSON library that stores arguments
	 * @param defaults the consumer options of annotations that leave them unset
	 */
	public DelayedTaskOperationSource(MethodExpressions expressions, PropertyResolver placeholders, JsonBinding json,
			ConsumerOptions defaults) {
		this(expressions, placeholders, () -> json, queue -> defaults);
	}

	/**
	 * @param expressions parses task id expressions
	 * @param placeholders resolves {@code ${...}} in delays and backoffs
	 * @param json supplies the JSON library that stores arguments, when the first annotation is read
	 * @param defaults the consumer options of each queue, for annotations that leave them unset
	 */
	public DelayedTaskOperationSource(MethodExpressions expressions, PropertyResolver placeholders,
			Supplier<JsonBinding> json, Function<String, ConsumerOptions> defaults) {
		this.expressions = expressions;
		this.placeholders = placeholders;
		this.json = json;
		this.defaults = defaults;
	}

	/** Parses and evaluates task id expressions. */
	public MethodExpressions expressions() {
		return expressions;
	}

	/**
	 * The operation of {@code method} called on {@code targetClass}, or {@code null} when it is not
	 * annotated.
	 * @throws IllegalStateException naming the method when the annotation is invalid
	 */
	public @Nullable DelayedTaskOperation getOperation(Method method, Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		return operations.computeIfAbsent(new MethodClassKey(method, targetClass),
				key -> Optional.ofNullable(parse(method, targetClass)))
			.orElse(null);
	}

	/**
	 * Proves that the operation's argument types survive the trip through JSON. Done once the
	 * application's beans exist, since the JSON mapper may be one of them.
	 * @param operation an operation of this source
	 * @throws IllegalStateException naming the method and the type when one does not
	 */
	public void checkArguments(DelayedTaskOperation operation) {
		if (operation.codec() instanceof ArgumentsCodec codec) {
			codec.check();
		}
	}

	/**
	 * The operations of every annotated method of a class.
	 * @throws IllegalStateException describing every invalid annotation of the class
	 */
	public List<DelayedTaskOperation> operationsOf(Class<?> targetClass) {
		if (!AnnotationUtils.isCandidateClass(targetClass, DelayedTask.class)) {
			return List.of();
		}
		List<DelayedTaskOperation> found = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, method -> {
			try {
				DelayedTaskOperation operation = getOperation(method, targetClass);
				if (operation != null && operation.method().equals(method)) {
					found.add(operation);
				}
			}
			catch (IllegalStateException ex) {
				problems.add(ex.getMessage());
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		ReflectionUtils.doWithMethods(ClassUtils.getUserClass(targetClass), method -> {
			TaskUpgrade upgrade = AnnotatedElementUtils.findMergedAnnotation(method, TaskUpgrade.class);
			if (upgrade != null && found.stream().noneMatch(operation -> operation.queue().equals(upgrade.queue()))) {
				problems.add("@TaskUpgrade " + MethodExpressions.describe(method) + " reads queue '" + upgrade.queue()
						+ "', which no @DelayedTask of " + ClassUtils.getUserClass(targetClass).getSimpleName() + " has");
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		if (!problems.isEmpty()) {
			throw new IllegalStateException(String.join("; ", problems));
		}
		return found;
	}

	private @Nullable DelayedTaskOperation parse(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		if (specific.isSynthetic()) {
			// Compiler-made, such as the static body Kotlin 2 gives an open suspend function, annotations
			// copied: the call goes through the function itself.
			return null;
		}
		DelayedTask annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DelayedTask.class);
		if (annotation == null) {
			return null;
		}
		String where = "@DelayedTask " + MethodExpressions.describe(specific);
		boolean suspending = KotlinDetector.isSuspendingFunction(specific);
		Class<?> returnType = suspending ? SuspendFunctions.declaredReturnType(specific) : specific.getReturnType();
		if (returnType != void.class && returnType != Void.class && returnType != TaskHandle.class
				&& !"kotlin.Unit".equals(returnType.getName())) {
			throw new IllegalStateException(where + " must return void or TaskHandle: a call schedules the task and "
					+ "returns at once");
		}
		if (suspending) {
			SuspendingTasks.checkSupported(where);
		}
		if (Modifier.isStatic(specific.getModifiers()) || !Modifier.isPublic(specific.getModifiers())) {
			throw new IllegalStateException(where + " must be a public instance method, called through the bean");
		}
		String queue = annotation.queue().isBlank()
				? specific.getDeclaringClass().getName() + "." + specific.getName() : annotation.queue();
		if (queue.indexOf('{') >= 0 || queue.indexOf('}') >= 0) {
			throw new IllegalStateException(where + " has queue name '" + queue + "' with braces");
		}
		Duration delay = duration(where, "delay", annotation.delay());
		if (delay.isNegative()) {
			throw new IllegalStateException(where + " has a negative delay: " + annotation.delay());
		}
		Expression id = annotation.id().isBlank() ? null : expressions.parse(specific, targetClass, annotation.id());
		ConsumerOptions options = defaults.apply(queue);
		if (annotation.maxAttempts() != -1) {
			if (annotation.maxAttempts() < 1) {
				throw new IllegalStateException(where + " has maxAttempts " + annotation.maxAttempts()
						+ "; at least 1 (-1 uses warden.delayed-task.max-attempts)");
			}
			options = options.withMaxAttempts(annotation.maxAttempts());
		}
		if (!annotation.backoff().isBlank()) {
			Duration backoff = duration(where, "backoff", annotation.backoff());
			if (backoff.isNegative() || backoff.isZero()) {
				throw new IllegalStateException(where + " has a backoff that is not positive: " + annotation.backoff());
			}
			options = options.withBackoff(backoff);
		}
		if (!annotation.visibilityTimeout().isBlank()) {
			Duration visibility = duration(where, "visibilityTimeout", annotation.visibilityTimeout());
			if (visibility.isNegative() || visibility.isZero()) {
				throw new IllegalStateException(where + " has a visibilityTimeout that is not positive: "
						+ annotation.visibilityTimeout());
			}
			options = options.withVisibilityTimeout(visibility);
		}
		Expression limitKey = annotation.limit().key().isBlank() ? null
				: expressions.parse(specific, targetClass, annotation.limit().key());
		options = options.withLimits(limits(where, queue, annotation.limit(), options.limits(), limitKey != null));
		if (annotation.version() < 1) {
			throw new IllegalStateException(where + " has version " + annotation.version() + "; versions start at 1");
		}
		Map<Integer, Method> upgrades = upgrades(specific, targetClass, queue, annotation.version());
		ArgumentsCodec codec = new ArgumentsCodec(json, specific, annotation.version(), upgrades);
		// Deliveries call it reflectively, through the bean's proxy.
		ReflectionUtils.makeAccessible(specific);
		return new DelayedTaskOperation(specific, queue, delay, id, codec, options, annotation.transactional(),
				suspending, returnType == TaskHandle.class, limitKey);
	}

	/**
	 * The task limits of a method: its {@link TaskLimit}'s numbers over the queue's properties; the
	 * key, when it has one, is applied by the consumer.
	 */
	private TaskLimits limits(String where, String queue, TaskLimit limit, TaskLimits configured, boolean keyed) {
		int concurrency = limit.concurrency().isBlank() ? configured.concurrency()
				: (int) positive(where, "limit.concurrency", limit.concurrency(), Integer.MAX_VALUE);
		RateLimit rate = configured.rate();
		if (!limit.rate().isBlank() || !limit.period().isBlank() || !limit.burst().isBlank()) {
			if (limit.rate().isBlank() && rate == null) {
				throw new IllegalStateException(where + " sets limit.period or limit.burst without limit.rate");
			}
			long permits = limit.rate().isBlank() ? rate.permits()
					: positive(where, "limit.rate", limit.rate(), Long.MAX_VALUE);
			Duration period = !limit.period().isBlank() ? duration(where, "limit.period", limit.period())
					: (rate != null) ? rate.period() : Duration.ofSeconds(1);
			long burst = !limit.burst().isBlank() ? positive(where, "limit.burst", limit.burst(), RateLimit.MAX_BURST)
					: (rate != null && limit.rate().isBlank()) ? rate.burst() : permits;
			try {
				rate = new RateLimit(permits, period, burst);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException(where + " has an invalid limit rate: " + ex.getMessage(), ex);
			}
		}
		if (keyed && concurrency == 0 && rate == null) {
			throw new IllegalStateException(where + " has a limit key but no limit: set limit.concurrency or "
					+ "limit.rate, or warden.delayed-task.queues." + queue + ".limit.*");
		}
		return new TaskLimits(concurrency, rate, null);
	}

	/** A positive whole number attribute, with placeholders resolved. */
	private long positive(String where, String attribute, String text, long max) {
		String resolved;
		try {
			resolved = placeholders.resolveRequiredPlaceholders(text).trim();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + text + "' with an unresolvable "
					+ "placeholder: " + ex.getMessage(), ex);
		}
		long value;
		try {
			value = Long.parseLong(resolved);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + resolved + "'"
					+ (resolved.equals(text) ? "" : " (from '" + text + "')") + ", not a whole number", ex);
		}
		if (value < 1 || value > max) {
			throw new IllegalStateException(where + " has " + attribute + " " + value + "; it must be from 1 to " + max);
		}
		return value;
	}

	/** The {@link TaskUpgrade}s of the queue in the class, by the version they read, checked. */
	private static Map<Integer, Method> upgrades(Method handler, Class<?> targetClass, String queue, int version) {
		Map<Integer, Method> upgrades = new HashMap<>();
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		ReflectionUtils.doWithMethods(userClass, method -> {
			TaskUpgrade upgrade = AnnotatedElementUtils.findMergedAnnotation(method, TaskUpgrade.class);
			if (upgrade == null || !upgrade.queue().equals(queue)) {
				return;
			}
			String where = "@TaskUpgrade " + MethodExpressions.describe(method);
			if (!Modifier.isStatic(method.getModifiers())) {
				throw new IllegalStateException(where + " must be static: it turns arguments into arguments");
			}
			if (upgrade.from() < 1 || upgrade.from() >= version) {
				throw new IllegalStateException(where + " reads version " + upgrade.from() + " of queue '" + queue
						+ "', whose @DelayedTask " + MethodExpressions.describe(handler) + " is version " + version
						+ "; an upgrade reads a version from 1 to " + (version - 1));
			}
			Method other = upgrades.put(upgrade.from(), method);
			if (other != null) {
				throw new IllegalStateException(where + " and " + MethodExpressions.describe(other)
						+ " both read version " + upgrade.from() + " of queue '" + queue + "'");
			}
			Class<?>[] parameters = handlerParameters(handler);
			Class<?> returned = method.getReturnType();
			boolean fits = (returned == Object[].class)
					|| (parameters.length == 1 && ClassUtils.isAssignable(parameters[0], returned));
			if (!fits) {
				throw new IllegalStateException(where + " returns " + returned.getSimpleName() + ", but "
						+ MethodExpressions.describe(handler) + " takes " + ((parameters.length == 1)
								? "a " + parameters[0].getSimpleName() : parameters.length + " arguments: return Object[]"));
			}
			ReflectionUtils.makeAccessible(method);
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return upgrades;
	}

	/** The handler's parameters as a task's arguments: a suspend function's continuation is not one. */
	private static Class<?>[] handlerParameters(Method handler) {
		Class<?>[] parameters = handler.getParameterTypes();
		return KotlinDetector.isSuspendingFunction(handler) ? Arrays.copyOf(parameters, parameters.length - 1)
				: parameters;
	}

	private Duration duration(String where, String attribute, String text) {
		return AnnotationDurations.parse(placeholders, where, attribute, text);
	}

}
