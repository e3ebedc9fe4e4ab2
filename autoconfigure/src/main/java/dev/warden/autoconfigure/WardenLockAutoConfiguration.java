package dev.warden.autoconfigure;

import java.util.List;

import dev.warden.Warden;
import dev.warden.expression.MethodExpressions;
import dev.warden.lock.interceptor.CompletionStageHandler;
import dev.warden.lock.interceptor.LockAnnotationValidator;
import dev.warden.lock.interceptor.LockAspectSupport;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.lock.interceptor.LockInterceptor;
import dev.warden.lock.interceptor.LockOperationSource;
import dev.warden.lock.interceptor.LockOperationSourceAdvisor;
import dev.warden.lock.interceptor.ReactorHandler;
import dev.warden.lock.spi.LockedReturnTypeHandler;
import io.micrometer.observation.ObservationRegistry;
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
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@link dev.warden.lock.annotation.DistributedLock} methods under their locks.
 * <p>
 * The advisor and the annotation checks are infrastructure beans created before the application's
 * beans; they read {@code warden.lock.*} straight from the environment and reach the
 * {@link Warden} client only at the first call.
 */
@AutoConfiguration(after = WardenAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(Warden.class)
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
public final class WardenLockAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockOperationSource wardenLockOperationSource(Environment environment, BeanFactory beanFactory) {
		WardenProperties properties = properties(environment);
		return new LockOperationSource(new MethodExpressions(beanFactory), properties.lockKeyPrefix(),
				properties.getLock().getDefaultWaitTime().toMillis());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockOperationSourceAdvisor wardenLockAdvisor(LockOperationSource wardenLockOperationSource,
			Environment environment, ObjectProvider<LockAspectSupport> lockAspectSupport) {
		LockInterceptor interceptor = new LockInterceptor(SingletonSupplier.of(lockAspectSupport::getObject));
		return new LockOperationSourceAdvisor(wardenLockOperationSource, interceptor,
				properties(environment).getLock().getAspectOrder());
	}

	@Bean
	static LockAnnotationValidator wardenLockAnnotationValidator(LockOperationSource wardenLockOperationSource,
			ObjectProvider<LockedReturnTypeHandler> handlers) {
		return new LockAnnotationValidator(wardenLockOperationSource, () -> handlers.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	LockAspectSupport lockAspectSupport(Warden warden, LockOperationSource wardenLockOperationSource,
			ObjectProvider<LockedReturnTypeHandler> handlers, Environment environment, LockCalls wardenLockCalls) {
		List<LockedReturnTypeHandler> ordered = handlers.orderedStream().toList();
		// The annotations' names carry warden.lock.key-prefix, never warden.lock.name-prefix.
		return new LockAspectSupport(warden.unprefixedLocks(), warden.getLockListener(), wardenLockOperationSource, ordered,
				properties(environment).getLock().isFailOnLostLease(), wardenLockCalls);
	}

	@Bean
	@ConditionalOnMissingBean
	LockCalls wardenLockCalls(ObjectProvider<LockCalls.Listener> listeners,
			ObjectProvider<ObservationRegistry> observationRegistry, Environment environment) {
		ObservationRegistry observations = properties(environment).getObservations().isEnabled()
				? observationRegistry.getIfAvailable(() -> ObservationRegistry.NOOP) : ObservationRegistry.NOOP;
		return new LockCalls(CompositeListeners.lockCallListener(listeners.orderedStream().toList()), observations);
	}

	@Bean
	@ConditionalOnMissingBean
	CompletionStageHandler completionStageLockHandler() {
		return new CompletionStageHandler();
	}

	private static WardenProperties properties(Environment environment) {
		return Binder.get(environment).bindOrCreate("warden", WardenProperties.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "reactor.core.publisher.Mono")
	static class ReactorLockConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactorHandler reactorLockHandler() {
			return new ReactorHandler();
		}

	}

}
