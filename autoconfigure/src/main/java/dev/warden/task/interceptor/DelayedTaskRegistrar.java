package dev.warden.task.interceptor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.warden.InvalidAnnotationException;
import dev.warden.expression.MethodExpressions;
import dev.warden.task.TaskConsumer;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;

/**
 * Finds every {@link dev.warden.task.annotation.DelayedTask} method as beans are created (an
 * invalid one fails startup, naming the bean and the method) and, once the application has
 * started, consumes each annotated queue on this instance. On shutdown it stops claiming tasks and
 * waits for the running ones, before the Warden client closes.
 */
public final class DelayedTaskRegistrar implements BeanPostProcessor, SmartInitializingSingleton, SmartLifecycle {

	/** Stops before the Warden client closes, starts after it. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4000;

	private final DelayedTaskOperationSource operations;

	private final Supplier<DelayedTaskSupport> support;

	private final Map<String, Handler> handlers = new LinkedHashMap<>();

	private final List<TaskConsumer> consumers = new ArrayList<>();

	private volatile boolean running;

	/**
	 * @param operations the parsed annotations
	 * @param support supplies the support class once the application's beans exist
	 */
	public DelayedTaskRegistrar(DelayedTaskOperationSource operations, Supplier<DelayedTaskSupport> support) {
		this.operations = operations;
		this.support = support;
	}

	/** Checks the annotations before the bean is proxied, whose pointcut would otherwise meet a bad one first. */
	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		operationsOf(bean, beanName);
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		List<DelayedTaskOperation> found = operationsOf(bean, beanName);
		synchronized (handlers) {
			for (DelayedTaskOperation operation : found) {
				Handler existing = handlers.get(operation.queue());
				if (existing != null) {
					throw new InvalidAnnotationException("Queue '" + operation.queue() + "' has two @DelayedTask "
							+ "handlers: " + MethodExpressions.describe(existing.operation.method()) + " (bean '"
							+ existing.beanName + "') and " + MethodExpressions.describe(operation.method())
							+ " (bean '" + beanName + "')");
				}
				handlers.put(operation.queue(), new Handler(beanName, bean, operation));
			}
		}
		return bean;
	}

	/**
	 * The {@code @DelayedTask} method that runs a queue's tasks in this application.
	 * @param queue the queue's name
	 * @return the method's parsed annotation, whose codec reads the queue's payloads; empty when no
	 * method has that queue
	 */
	public java.util.Optional<DelayedTaskOperation> operationOf(String queue) {
		synchronized (handlers) {
			Handler handler = handlers.get(queue);
			return java.util.Optional.ofNullable((handler != null) ? handler.operation : null);
		}
	}

	private List<DelayedTaskOperation> operationsOf(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		try {
			return operations.operationsOf(targetClass);
		}
		catch (IllegalStateException ex) {
			throw new InvalidAnnotationException("Invalid @DelayedTask on bean '" + beanName + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Proves every annotated method's argument types survive the trip through JSON, once the
	 * application's beans (its JSON mapper among them) exist.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		synchronized (handlers) {
			for (Handler handler : handlers.values()) {
				try {
					operations.checkArguments(handler.operation);
				}
				catch (IllegalStateException ex) {
					throw new InvalidAnnotationException("Invalid @DelayedTask on bean '" + handler.beanName + "': "
							+ ex.getMessage(), ex);
				}
			}
		}
	}

	@Override
	public void start() {
		DelayedTaskSupport tasks = support.get();
		List<Handler> starting;
		synchronized (handlers) {
			starting = List.copyOf(handlers.values());
		}
		// Outside the monitor: each start waits for Redis to confirm a subscription.
		for (Handler handler : starting) {
			TaskConsumer consumer = tasks.consume(handler.bean, handler.operation);
			synchronized (handlers) {
				consumers.add(consumer);
			}
		}
		running = true;
	}

	@Override
	public void stop() {
		running = false;
		List<TaskConsumer> stopping;
		synchronized (handlers) {
			stopping = List.copyOf(consumers);
			consumers.clear();
		}
		if (!stopping.isEmpty()) {
			support.get().stopConsuming();
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private record Handler(String beanName, Object bean, DelayedTaskOperation operation) {
	}

}
