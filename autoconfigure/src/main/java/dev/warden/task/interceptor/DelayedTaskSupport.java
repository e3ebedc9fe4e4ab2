package dev.warden.task.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.warden.expression.MethodExpressions;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.DelayedQueueFactory;
import dev.warden.task.ScheduleOption;
import dev.warden.task.ScheduleResult;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskHandle;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.expression.Expression;
import reactor.core.publisher.Mono;

/**
 * Decides what a call of a {@link dev.warden.task.annotation.DelayedTask} method does: a call from
 * the application schedules the task; the call Warden makes when the task is due runs the method
 * (through the bean, so its other advice, such as {@code @Transactional}, applies).
 */
public final class DelayedTaskSupport {

	private static final Logger logger = LoggerFactory.getLogger(DelayedTaskSupport.class);

	private final DelayedQueueFactory queueFactory;

	private final DelayedTaskOperationSource operations;

	private final MethodExpressions expressions;

	// One queue view per queue: scheduling is a hot path, and a view's keys are built once.
	private final Map<String, DelayedQueue<Object[]>> queues = new ConcurrentHashMap<>();

	// Which annotated method this thread is delivering a task to: that call runs, it is not scheduled.
	private final ThreadLocal<@Nullable Method> delivering = new ThreadLocal<>();

	// A test's say over calls; null, and never asked, in production.
	private final @Nullable DelayedTaskCalls calls;

	/**
	 * @param queueFactory where the queues come from
	 * @param operations the parsed annotations, whose expressions give task ids
	 */
	public DelayedTaskSupport(DelayedQueueFactory queueFactory, DelayedTaskOperationSource operations) {
		this(queueFactory, operations, null);
	}

	/**
	 * @param queueFactory where the queues come from
	 * @param operations the parsed annotations, whose expressions give task ids
	 * @param calls what decides, in tests, that a call runs inline or is only recorded; {@code null}
	 * to schedule every call
	 */
	public DelayedTaskSupport(DelayedQueueFactory queueFactory, DelayedTaskOperationSource operations,
			@Nullable DelayedTaskCalls calls) {
		this.queueFactory = queueFactory;
		this.operations = operations;
		this.expressions = operations.expressions();
		this.calls = calls;
	}

	/**
	 * Schedules the call, or runs it when it is a delivery.
	 * @return the scheduled task's {@link TaskHandle} for a method that returns one, else {@code null}
	 */
	@Nullable Object execute(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		Class<?> targetClass = AopUtils.getTargetClass(target);
		DelayedTaskOperation operation = operations.getOperation(invocation.getMethod(), targetClass);
		if (operation == null || operation.method().equals(delivering.get())) {
			return invocation.proceed();
		}
		Object[] arguments = invocation.getArguments();
		String id = taskId(operation, arguments, target, targetClass);
		Object[] task = operation.taskArguments(arguments);
		ScheduleResult intercepted = (calls != null) ? calls.intercept(new Call(invocation, operation, id, task)) : null;
		ScheduleResult result = (intercepted != null) ? intercepted : operation.transactional() ? queue(operation).schedule(id, task, operation.delay())
				: queue(operation).schedule(id, task, operation.delay(), ScheduleOption.IMMEDIATE);
		if (result.status() == ScheduleResult.Status.ALREADY_PENDING) {
			logger.debug("Task '{}' of queue '{}' is already pending; kept as it is", id, operation.queue());
		}
		TaskHandle handle = operation.returnsHandle() ? new TaskHandle(operation.queue(), id, result) : null;
		// Spring's proxy awaits what the interceptor of a suspend function returns.
		return operation.suspending() ? ReactorDelegate.justOrEmpty(handle) : handle;
	}

	/** A call that a test may run inline or only record. */
	private final class Call implements DelayedTaskCalls.Call {

		private final MethodInvocation invocation;

		private final DelayedTaskOperation operation;

		private final String id;

		private final String payload;

		Call(MethodInvocation invocation, DelayedTaskOperation operation, String id, Object[] task) {
			this.invocation = invocation;
			this.operation = operation;
			this.id = id;
			this.payload = operation.codec().encode(task);
		}

		@Override
		public String queue() {
			return operation.queue();
		}

		@Override
		public String id() {
			return id;
		}

		@Override
		public java.time.Duration delay() {
			return operation.delay();
		}

		@Override
		public Method method() {
			return operation.method();
		}

		@Override
		public String payload() {
			return payload;
		}

		@Override
		public Object[] arguments() {
			return operation.codec().decode(payload);
		}

		@Override
		public void run() throws Exception {
			// Through the proxy, as a delivery calls it, so that the bean's other advice applies.
			Object bean = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.getProxy() : invocation.getThis();
			deliver(java.util.Objects.requireNonNull(bean), operation, arguments());
		}

	}

	/** Kept apart so that Reactor is loaded only for suspend functions, which Spring bridges with it. */
	private static final class ReactorDelegate {

		static Object justOrEmpty(@Nullable Object value) {
			return Mono.justOrEmpty(value);
		}

	}

	/**
	 * Consumes the operation's queue on this instance: each due task calls the method through
	 * {@code bean}.
	 * @param bean the bean whose method runs the tasks
	 * @param operation the annotated method
	 * @return the consumer
	 */
	TaskConsumer consume(Object bean, DelayedTaskOperation operation) {
		ConsumerOptions options = operation.options();
		Expression limitKey = operation.limitKey();
		if (limitKey != null) {
			Class<?> targetClass = AopUtils.getTargetClass(bean);
			options = options.withLimits(options.limits().perKey(Object[].class, arguments -> {
				Object key = expressions.evaluate(limitKey, operation.method(), operation.methodArguments(arguments),
						bean, targetClass);
				return (key != null) ? key.toString() : null;
			}));
		}
		return queue(operation).consume(delivery -> deliver(bean, operation, delivery.payload()), options);
	}

	/**
	 * Stops every consumer this support started, waiting up to the shutdown grace period for the
	 * tasks under way.
	 */
	void stopConsuming() {
		queueFactory.stopConsumers();
	}

	private DelayedQueue<Object[]> queue(DelayedTaskOperation operation) {
		return queues.computeIfAbsent(operation.queue(), queue -> queueFactory.getDelayedQueue(queue, operation.codec()));
	}

	/** Runs a due task: calls the method through {@code bean} with the stored arguments. */
	void deliver(Object bean, DelayedTaskOperation operation, Object[] arguments) throws Exception {
		Method previous = delivering.get();
		delivering.set(operation.method());
		try {
			if (operation.suspending()) {
				SuspendingTasks.invoke(bean, operation.method(), arguments);
			}
			else {
				operation.method().invoke(bean, arguments);
			}
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getTargetException();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw (Error) cause;
		}
		finally {
			if (previous == null) {
				delivering.remove();
			}
			else {
				delivering.set(previous);
			}
		}
	}

	private String taskId(DelayedTaskOperation operation, Object[] arguments, Object target, Class<?> targetClass) {
		if (operation.id() == null) {
			return UUID.randomUUID().toString();
		}
		Object value = expressions.evaluate(operation.id(), operation.method(), arguments, target, targetClass);
		String id = (value != null) ? value.toString() : null;
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("Task id of " + MethodExpressions.describe(operation.method())
					+ " evaluated to " + (id == null ? "null" : "a blank string") + "; nothing was scheduled");
		}
		return id;
	}

}
