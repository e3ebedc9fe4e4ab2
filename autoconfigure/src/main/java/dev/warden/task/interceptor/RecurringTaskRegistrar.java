package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.warden.InvalidAnnotationException;
import dev.warden.expression.MethodExpressions;
import dev.warden.task.RecurringJob;
import dev.warden.task.RecurringJobRunner;
import dev.warden.task.RecurringSchedule;
import dev.warden.task.TaskConsumer;
import dev.warden.task.annotation.RecurringTask;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds every {@link RecurringTask} method as beans are created (an invalid one fails startup,
 * naming the bean and the method) and, once the application has started, plans the jobs in Redis
 * and runs the occurrences this instance claims. On shutdown it stops claiming them, before the
 * Warden client closes.
 */
public final class RecurringTaskRegistrar implements BeanPostProcessor, SmartLifecycle {

	private final PropertyResolver placeholders;

	private final Supplier<RecurringJobRunner> runner;

	private final String queue;

	private final Duration misfireThreshold;

	private final Map<String, Job> jobs = new LinkedHashMap<>();

	private @Nullable TaskConsumer consumer;

	private volatile boolean running;

	/**
	 * @param placeholders resolves {@code ${...}} in the annotations
	 * @param runner runs the jobs, once the application has started
	 * @param queue the application's recurring queue
	 * @param misfireThreshold how late an occurrence may start before it is a misfire
	 */
	public RecurringTaskRegistrar(PropertyResolver placeholders, Supplier<RecurringJobRunner> runner, String queue,
			Duration misfireThreshold) {
		this.placeholders = placeholders;
		this.runner = runner;
		this.queue = queue;
		this.misfireThreshold = misfireThreshold;
	}

	/** Checks the annotations before the bean is proxied. */
	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		jobsOf(bean, beanName);
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		List<Job> found = jobsOf(bean, beanName);
		synchronized (jobs) {
			for (Job job : found) {
				Job existing = jobs.get(job.name());
				if (existing != null) {
					throw new InvalidAnnotationException("Two @RecurringTask jobs are named '" + job.name() + "': "
							+ MethodExpressions.describe(existing.method()) + " (bean '" + existing.beanName() + "') and "
							+ MethodExpressions.describe(job.method()) + " (bean '" + beanName + "')");
				}
				// Called through the bean (its proxy, if any), so its other advice applies. A suspend
				// function is called as its class declares it, which Kotlin's reflection knows.
				Method invocable = KotlinDetector.isSuspendingFunction(job.method()) ? job.method()
						: AopUtils.selectInvocableMethod(job.method(), bean.getClass());
				ReflectionUtils.makeAccessible(invocable);
				jobs.put(job.name(), new Job(job.name(), job.schedule(), job.annotation(), beanName, bean, invocable));
			}
		}
		return bean;
	}

	private List<Job> jobsOf(Object bean, String beanName) {
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		Map<Method, RecurringTask> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<RecurringTask>) method -> AnnotatedElementUtils
					.findMergedAnnotation(method, RecurringTask.class));
		List<Job> found = new ArrayList<>();
		annotated.forEach((method, annotation) -> {
			try {
				found.add(parse(targetClass, method, annotation, beanName, bean));
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				throw new InvalidAnnotationException("Invalid @RecurringTask on bean '" + beanName + "': "
						+ ex.getMessage(), ex);
			}
		});
		return found;
	}

	private Job parse(Class<?> targetClass, Method method, RecurringTask annotation, String beanName, Object bean) {
		String where = "@RecurringTask " + MethodExpressions.describe(method);
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		if (method.getParameterCount() > (suspending ? 1 : 0)) {
			throw new IllegalStateException(where + " has parameters; a recurring task's method takes none");
		}
		if (suspending) {
			SuspendingTasks.checkSupported(where);
		}
		String name = annotation.name().isEmpty() ? targetClass.getSimpleName() + "." + method.getName()
				: placeholders.resolveRequiredPlaceholders(annotation.name());
		if (name.isBlank() || name.contains("{") || name.contains("}") || name.contains("@")) {
			throw new IllegalStateException(where + " has the name '" + name
					+ "'; a job's name must not be blank nor contain braces or '@'");
		}
		return new Job(name, schedule(where, annotation), annotation, beanName, bean, method);
	}

	private RecurringSchedule schedule(String where, RecurringTask annotation) {
		int given = (annotation.cron().isEmpty() ? 0 : 1) + (annotation.fixedRate().isEmpty() ? 0 : 1)
				+ (annotation.fixedDelay().isEmpty() ? 0 : 1);
		if (given != 1) {
			throw new IllegalStateException(where + " needs exactly one of cron, fixedRate and fixedDelay; it has "
					+ given);
		}
		if (!annotation.cron().isEmpty()) {
			if (!annotation.initialDelay().isEmpty()) {
				throw new IllegalStateException(where + " has an initialDelay, which a cron schedule does not take");
			}
			String cron = placeholders.resolveRequiredPlaceholders(annotation.cron());
			ZoneId zone = annotation.zone().isEmpty() ? ZoneOffset.UTC
					: ZoneId.of(placeholders.resolveRequiredPlaceholders(annotation.zone()));
			try {
				return RecurringSchedule.cron(cron, zone);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException(where + " has the cron expression '" + cron + "': " + ex.getMessage(), ex);
			}
		}
		if (!annotation.zone().isEmpty()) {
			throw new IllegalStateException(where + " has a zone, which only a cron schedule takes");
		}
		Duration initialDelay = annotation.initialDelay().isEmpty() ? Duration.ZERO
				: AnnotationDurations.parse(placeholders, where, "initialDelay", annotation.initialDelay());
		if (!annotation.fixedRate().isEmpty()) {
			return RecurringSchedule.fixedRate(
					AnnotationDurations.parse(placeholders, where, "fixedRate", annotation.fixedRate()), initialDelay);
		}
		return RecurringSchedule.fixedDelay(
				AnnotationDurations.parse(placeholders, where, "fixedDelay", annotation.fixedDelay()), initialDelay);
	}

	@Override
	public void start() {
		List<RecurringJob> defined = new ArrayList<>();
		synchronized (jobs) {
			for (Job job : jobs.values()) {
				defined.add(new RecurringJob(job.name(), job.schedule(), job.annotation().misfire(), job::invoke));
			}
		}
		if (defined.isEmpty()) {
			// No recurring task here: this instance takes no part (it neither runs nor removes jobs).
			running = true;
			return;
		}
		consumer = runner.get().runRecurring(queue, defined, misfireThreshold);
		running = true;
	}

	@Override
	public void stop() {
		running = false;
		TaskConsumer stopping = consumer;
		consumer = null;
		if (stopping != null) {
			stopping.close();
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	/** Starts and stops with the delayed task registrar: after the Warden client, before it closes. */
	@Override
	public int getPhase() {
		return DelayedTaskRegistrar.PHASE;
	}

	/** The jobs found, by name. */
	public Map<String, RecurringSchedule> jobs() {
		Map<String, RecurringSchedule> schedules = new LinkedHashMap<>();
		synchronized (jobs) {
			jobs.forEach((name, job) -> schedules.put(name, job.schedule()));
		}
		return schedules;
	}

	private record Job(String name, RecurringSchedule schedule, RecurringTask annotation, String beanName,
			Object bean, Method method) {

		void invoke() throws Exception {
			if (KotlinDetector.isSuspendingFunction(method)) {
				SuspendingTasks.invoke(bean, method, new Object[0]);
				return;
			}
			try {
				method.invoke(bean);
			}
			catch (java.lang.reflect.InvocationTargetException ex) {
				Throwable cause = ex.getCause();
				if (cause instanceof Exception exception) {
					throw exception;
				}
				if (cause instanceof Error error) {
					throw error;
				}
				throw ex;
			}
		}

	}

}
