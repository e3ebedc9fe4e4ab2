package dev.warden.autoconfigure;

import java.util.function.Supplier;

import dev.warden.Warden;
import dev.warden.json.JsonBinding;
import dev.warden.expression.MethodExpressions;
import dev.warden.task.interceptor.DelayedTaskInterceptor;
import dev.warden.task.interceptor.DelayedTaskOperationSource;
import dev.warden.task.interceptor.DelayedTaskRegistrar;
import dev.warden.task.interceptor.DelayedTaskCalls;
import dev.warden.task.interceptor.DelayedTaskSupport;
import dev.warden.task.interceptor.RecurringTaskRegistrar;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Turns calls of {@link dev.warden.task.annotation.DelayedTask} methods into scheduled tasks and
 * consumes their queues on this instance, and runs {@link dev.warden.task.annotation.RecurringTask}
 * methods once per occurrence across the application's instances.
 * <p>
 * The advisor, the operation source and the registrar are infrastructure beans created before the
 * application's beans; they read {@code warden.delayed-task.*} straight from the environment and
 * reach the {@link Warden} client only when the application has started.
 */
@AutoConfiguration(after = WardenAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(Warden.class)
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
public final class WardenTaskAutoConfiguration {

	/** Outside every other advice: scheduling a call runs none of it, a delivery all of it. */
	static final int ADVISOR_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DelayedTaskOperationSource wardenDelayedTaskOperationSource(Environment environment,
			BeanFactory beanFactory) {
		WardenProperties properties = Binder.get(environment).bindOrCreate("warden", WardenProperties.class);
		// The application's own mapper (its modules and settings), else one with every module on the
		// classpath. Scheduling and delivery both use it, so they always agree on the payload's form.
		Supplier<JsonBinding> json = SingletonSupplier.of(() -> ApplicationJson.of(beanFactory));
		WardenProperties.DelayedTask tasks = properties.getDelayedTask();
		return new DelayedTaskOperationSource(new MethodExpressions(beanFactory), environment, json,
				tasks::toConsumerOptions);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DelayedTaskInterceptor wardenDelayedTaskAdvisor(DelayedTaskOperationSource wardenDelayedTaskOperationSource,
			ObjectProvider<DelayedTaskSupport> delayedTaskSupport) {
		return new DelayedTaskInterceptor(wardenDelayedTaskOperationSource,
				SingletonSupplier.of(delayedTaskSupport::getObject), ADVISOR_ORDER);
	}

	@Bean
	static DelayedTaskRegistrar wardenDelayedTaskRegistrar(DelayedTaskOperationSource wardenDelayedTaskOperationSource,
			ObjectProvider<DelayedTaskSupport> delayedTaskSupport) {
		return new DelayedTaskRegistrar(wardenDelayedTaskOperationSource,
				SingletonSupplier.of(delayedTaskSupport::getObject));
	}

	@Bean
	static RecurringTaskRegistrar wardenRecurringTaskRegistrar(Environment environment,
			ObjectProvider<Warden> warden) {
		WardenProperties.Recurring recurring = Binder.get(environment)
			.bindOrCreate("warden", WardenProperties.class)
			.getRecurring();
		return new RecurringTaskRegistrar(environment, SingletonSupplier.of(warden::getObject),
				recurring.queueFor(environment.getProperty("spring.application.name")), recurring.getMisfireThreshold());
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedTaskSupport delayedTaskSupport(Warden warden, DelayedTaskOperationSource wardenDelayedTaskOperationSource,
			ObjectProvider<DelayedTaskCalls> calls) {
		return new DelayedTaskSupport(warden, wardenDelayedTaskOperationSource, calls.getIfAvailable());
	}

}
