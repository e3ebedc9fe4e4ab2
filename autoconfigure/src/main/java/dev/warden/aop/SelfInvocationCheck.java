package dev.warden.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.warden.CheckMode;
import dev.warden.InvalidAnnotationException;
import dev.warden.expression.MethodExpressions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.asm.Type;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Fails startup (or warns, as configured) when a bean calls one of its own Warden-annotated methods
 * on {@code this}: Spring's proxy never sees such a call, so a {@code @DelayedTask} method would run
 * at once instead of being scheduled, and a {@code @DistributedLock} method would run unlocked.
 * <p>
 * Each bean class with an annotated method has its bytecode read once at startup, with Spring's
 * bundled ASM, as Spring reads classes for annotation scanning: Java and Kotlin classes and records
 * alike, with the classes the compiler makes for their lambdas, coroutine blocks ({@code launch {}},
 * {@code async {}}), anonymous and inner classes. A call through an injected reference to the bean's own proxy is not reported; neither is
 * a locked method's call of itself, which runs under the lock its outer call holds.
 */
public final class SelfInvocationCheck implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(SelfInvocationCheck.class);

	/**
	 * One kind of advised method.
	 *
	 * @param annotation the annotation, as the message names it ({@code @DelayedTask})
	 * @param consequence what a call on {@code this} does instead ("runs at once instead of being
	 * scheduled")
	 * @param advised whether a method of a class is advised; may throw on an invalid annotation,
	 * which the annotation's own check reports
	 * @param recursionAllowed whether the method calling itself is fine
	 */
	public record Advice(String annotation, String consequence, Advised advised, boolean recursionAllowed) {
	}

	/** Whether a method is advised when called on an instance of a class. */
	@FunctionalInterface
	public interface Advised {

		boolean test(Method method, Class<?> targetClass);

	}

	private final CheckMode mode;

	private final List<Advice> advice;

	private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();

	/**
	 * @param mode what to do about a self-invocation
	 * @param advice the kinds of advised methods
	 */
	public SelfInvocationCheck(CheckMode mode, List<Advice> advice) {
		this.mode = mode;
		this.advice = List.copyOf(advice);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (mode == CheckMode.IGNORE) {
			return bean;
		}
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		if (!checked.add(targetClass)) {
			return bean;
		}
		List<String> problems = problems(targetClass);
		if (problems.isEmpty()) {
			return bean;
		}
		String message = "Bean '" + beanName + "' calls its own advised methods on this, which Spring's proxy never "
				+ "sees: " + String.join("; ", problems) + ". Move the called method to another bean, or call it "
				+ "through the bean's own proxy (inject it, e.g. @Lazy @Autowired " + targetClass.getSimpleName()
				+ " self, and call self." + "method(...)). Set warden.self-invocation=warn to only log this.";
		if (mode == CheckMode.FAIL) {
			throw new InvalidAnnotationException(message);
		}
		logger.warn(message);
		return bean;
	}

	private List<String> problems(Class<?> targetClass) {
		Map<SelfCalls.Signature, Method> methods = new LinkedHashMap<>();
		Map<SelfCalls.Signature, Advice> advised = new LinkedHashMap<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			SelfCalls.Signature signature = new SelfCalls.Signature(method.getName(), Type.getMethodDescriptor(method));
			methods.putIfAbsent(signature, method);
			Advice kind = adviceOf(method, targetClass);
			if (kind != null) {
				advised.putIfAbsent(signature, kind);
			}
		}
		if (advised.isEmpty()) {
			return List.of();
		}
		Set<String> problems = new LinkedHashSet<>();
		for (Class<?> type = targetClass; type != null && type != Object.class; type = type.getSuperclass()) {
			for (SelfCalls.Call call : SelfCalls.in(type, advised.keySet())) {
				Advice kind = advised.get(call.callee());
				if (kind.recursionAllowed() && call.caller().equals(call.callee())) {
					continue;
				}
				Method callee = methods.get(call.callee());
				problems.add(caller(type, call.caller(), methods) + " calls " + kind.annotation() + " method "
						+ MethodExpressions.describe(callee) + " on this, which " + kind.consequence());
			}
		}
		return new ArrayList<>(problems);
	}

	private @Nullable Advice adviceOf(Method method, Class<?> targetClass) {
		for (Advice kind : advice) {
			try {
				if (kind.advised().test(method, targetClass)) {
					return kind;
				}
			}
			catch (IllegalStateException ex) {
				// An invalid annotation: its own check fails startup over it.
			}
		}
		return null;
	}

	/** The caller as its author wrote it: a lambda's enclosing method, a constructor by its class. */
	private static String caller(Class<?> type, SelfCalls.Signature caller, Map<SelfCalls.Signature, Method> methods) {
		Method method = methods.get(caller);
		String name = caller.name();
		// Kotlin compiles a lambda to a private static method, not always marked synthetic.
		if (method != null && !method.isSynthetic() && !name.contains("$lambda")) {
			return MethodExpressions.describe(method);
		}
		if (name.equals("<init>")) {
			return "the constructor of " + type.getName();
		}
		if (name.endsWith("$suspendImpl")) {
			// Kotlin's body of an open class's suspend function, taking the instance first.
			Type[] arguments = Type.getArgumentTypes(caller.descriptor());
			String descriptor = Type.getMethodDescriptor(Type.getReturnType(caller.descriptor()),
					Arrays.copyOfRange(arguments, Math.min(1, arguments.length), arguments.length));
			Method function = methods.get(new SelfCalls.Signature(name.substring(0, name.indexOf('$')), descriptor));
			if (function != null) {
				return MethodExpressions.describe(function);
			}
		}
		if (name.startsWith("lambda$")) {
			// Java's lambda$enclosing$n
			String[] parts = name.split("\\$");
			return "a lambda in " + type.getName() + "." + (parts.length > 1 ? parts[1] : name);
		}
		if (name.contains("$lambda")) {
			// Kotlin's enclosing$lambda$n
			return "a lambda in " + type.getName() + "." + name.substring(0, name.indexOf('$'));
		}
		return type.getName() + "." + name;
	}

	/** Whether a method is advised, from a predicate on the method alone. */
	public static Advised byMethod(Predicate<Method> predicate) {
		return (method, targetClass) -> predicate.test(method);
	}

}
