package dev.warden.task.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

/**
 * Kotlin {@code suspend} functions as task handlers: supported when warden-kotlin's
 * {@link SuspendingTaskInvoker} and Spring's coroutine bridge ({@code kotlinx-coroutines-reactor})
 * are on the class path.
 */
final class SuspendingTasks {

	private static final String INVOKER = "dev.warden.kotlin.CoroutineTaskInvoker";

	private static final boolean SUPPORTED = ClassUtils.isPresent(INVOKER, SuspendingTasks.class.getClassLoader())
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", SuspendingTasks.class.getClassLoader());

	private static volatile @Nullable SuspendingTaskInvoker invoker;

	private SuspendingTasks() {
	}

	/**
	 * Checks that suspend functions can run as tasks.
	 * @param where the annotation and the method, for the message
	 * @throws IllegalStateException naming them when they cannot
	 */
	static void checkSupported(String where) {
		if (!SUPPORTED) {
			throw new IllegalStateException(where + " is a suspend function: Warden runs it as a task only with "
					+ "kotlinx-coroutines-reactor and dev.warden:warden-kotlin on the class path (the starters bring "
					+ "warden-kotlin)");
		}
	}

	/** Runs {@code function} on {@code bean} until it has ended (see {@link SuspendingTaskInvoker}). */
	static void invoke(Object bean, Method function, @Nullable Object[] arguments) throws Exception {
		SuspendingTaskInvoker current = invoker;
		if (current == null) {
			current = (SuspendingTaskInvoker) BeanUtils.instantiateClass(ClassUtils.forName(INVOKER,
					SuspendingTasks.class.getClassLoader()));
			invoker = current;
		}
		current.invoke(bean, function, arguments);
	}

}
