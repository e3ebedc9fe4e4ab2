package dev.warden.aot;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.ReflectiveProcessor;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;

/**
 * The reflection a native image needs for a {@code @DistributedLock}, {@code @RateLimited} or
 * {@code @DelayedTask} method, which the annotations ask for with {@code @Reflective}: Spring's AOT processing calls
 * it for every such method of a bean. Warden finds the annotated methods among the declared methods
 * of the bean's class, invokes a task handler and a lock fallback reflectively, binds task arguments
 * to and from JSON, and lets lock keys and task ids read the arguments' properties through SpEL.
 */
public final class WardenAnnotationsReflectiveProcessor implements ReflectiveProcessor {

	/** Named, not imported: the annotations name this class, and it should not name them back. */
	static final String DISTRIBUTED_LOCK = "dev.warden.lock.annotation.DistributedLock";

	/** Named, not imported, for the same reason. */
	static final String RATE_LIMITED = "dev.warden.ratelimit.annotation.RateLimited";

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public void registerReflectionHints(ReflectionHints hints, AnnotatedElement element) {
		if (element instanceof Method method) {
			registerMethod(hints, method);
		}
		else if (element instanceof Class<?> type) {
			// A class-level @DistributedLock applies to the class's public methods.
			for (Method method : type.getDeclaredMethods()) {
				if (java.lang.reflect.Modifier.isPublic(method.getModifiers()) && !method.isSynthetic()) {
					registerMethod(hints, method);
				}
			}
		}
	}

	private void registerMethod(ReflectionHints hints, Method method) {
		Class<?> declaring = method.getDeclaringClass();
		hints.registerType(declaring, MemberCategory.INTROSPECT_DECLARED_METHODS);
		hints.registerMethod(method, ExecutableMode.INVOKE);
		for (Type parameter : method.getGenericParameterTypes()) {
			bindings.registerReflectionHints(hints, parameter);
		}
		for (String annotation : new String[] { DISTRIBUTED_LOCK, RATE_LIMITED }) {
			MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
				.get(annotation)
				.getValue("fallbackMethod", String.class)
				.filter(name -> !name.isEmpty())
				.ifPresent(name -> registerFallbacks(hints, declaring, name));
		}
	}

	/** Every method of that name may be the fallback: which one is decided by its parameters. */
	private static void registerFallbacks(ReflectionHints hints, Class<?> declaring, String name) {
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(declaring)) {
			if (candidate.getName().equals(name)) {
				hints.registerMethod(candidate, ExecutableMode.INVOKE);
			}
		}
	}

}
