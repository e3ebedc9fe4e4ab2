package dev.warden.task.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Runs a Kotlin {@code suspend} function as the handler of a due task or of a recurring task's
 * occurrence: in a coroutine on the task's worker thread, which it holds until the function has
 * ended, so the queue's concurrency bounds suspended handlers as it bounds running ones. The
 * function is cancelled when its task's claim is lost ({@link dev.warden.task.TaskClaim}).
 * Implemented by {@code dev.warden:warden-kotlin}.
 */
public interface SuspendingTaskInvoker {

	/**
	 * Calls {@code function} on {@code bean} (through its proxy, so its other advice applies) and
	 * waits until it has ended.
	 * @param bean the bean
	 * @param function the suspend function, as the bean's class declares it
	 * @param arguments its arguments, without the continuation
	 * @throws Exception what the function throws
	 */
	void invoke(Object bean, Method function, @Nullable Object[] arguments) throws Exception;

}
