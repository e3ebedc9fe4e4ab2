package dev.warden.test;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import dev.warden.Warden;
import dev.warden.task.interceptor.DelayedTaskOperation;
import dev.warden.task.interceptor.DelayedTaskRegistrar;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Reads a task's stored payload back into the arguments its {@code @DelayedTask} method gets, with
 * that method's own codec: its parameter types, the application's JSON mapper, its version and
 * upgrades. One per {@link WardenTest} context, found by its Warden client.
 */
final class TaskArguments implements SmartInitializingSingleton {

	// The contexts' readers by their clients; a closed context's client is collected with it.
	private static final Map<Warden, TaskArguments> BY_CLIENT = Collections.synchronizedMap(new WeakHashMap<>());

	private final ObjectProvider<Warden> warden;

	private final ObjectProvider<DelayedTaskRegistrar> registrar;

	TaskArguments(ObjectProvider<Warden> warden, ObjectProvider<DelayedTaskRegistrar> registrar) {
		this.warden = warden;
		this.registrar = registrar;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Warden client = warden.getIfAvailable();
		if (client != null) {
			BY_CLIENT.put(client, this);
		}
	}

	/**
	 * @param warden the client of a {@link WardenTest} context
	 * @return that context's reader
	 * @throws IllegalStateException when the client is not one
	 */
	static TaskArguments of(Warden warden) {
		TaskArguments reader = BY_CLIENT.get(warden);
		if (reader == null) {
			throw new IllegalStateException("Arguments are read with the @DelayedTask methods of a @WardenTest "
					+ "application, and this Warden client is not that application's; read the payload() instead");
		}
		return reader;
	}

	/**
	 * @param queue the task's queue
	 * @param id the task's id
	 * @param payload its payload as stored
	 * @return the arguments its method gets
	 * @throws IllegalStateException when no {@code @DelayedTask} method of the application has that
	 * queue (a recurring task's, a programmatic consumer's: read its payload instead)
	 */
	List<@Nullable Object> read(String queue, String id, String payload) {
		DelayedTaskRegistrar handlers = registrar.getIfAvailable();
		DelayedTaskOperation operation = (handlers != null) ? handlers.operationOf(queue).orElse(null) : null;
		if (operation == null) {
			throw new IllegalStateException("Queue '" + queue + "' has no @DelayedTask method in this application, "
					+ "whose parameters would say how to read task '" + id + "'; read its payload() instead: " + payload);
		}
		return Collections.unmodifiableList(Arrays.asList(operation.codec().decode(payload)));
	}

	/**
	 * @return one argument, checked against {@code type}
	 */
	<T> @Nullable T read(String queue, String id, String payload, int index, Class<T> type) {
		List<@Nullable Object> arguments = read(queue, id, payload);
		if (index < 0 || index >= arguments.size()) {
			throw new IndexOutOfBoundsException("Task '" + id + "' has " + arguments.size() + " argument(s), no argument "
					+ index);
		}
		Object argument = arguments.get(index);
		if (argument != null && !boxed(type).isInstance(argument)) {
			throw new ClassCastException("Argument " + index + " of task '" + id + "' is a "
					+ argument.getClass().getName() + ", not a " + type.getName());
		}
		@SuppressWarnings("unchecked")
		T typed = (T) argument;
		return typed;
	}

	private static Class<?> boxed(Class<?> type) {
		if (!type.isPrimitive()) {
			return type;
		}
		return java.lang.invoke.MethodType.methodType(type).wrap().returnType();
	}

}
