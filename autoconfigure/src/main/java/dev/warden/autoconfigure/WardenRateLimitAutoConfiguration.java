package dev.warden.autoconfigure;

import java.lang.reflect.Method;

import dev.warden.Warden;
import dev.warden.expression.MethodExpressions;
import dev.warden.ratelimit.RateLimitListener;
import dev.warden.ratelimit.interceptor.RateLimitAnnotationValidator;
import dev.warden.ratelimit.interceptor.RateLimitInterceptor;
import dev.warden.ratelimit.interceptor.RateLimitOperationSource;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Runs {@link dev.warden.ratelimit.annotation.RateLimited} methods within their rate limits, and
 * turns a refusal that reaches a web handler into a 429 with {@code Retry-After}.
 * <p>
 * The advisor and the annotation checks are infrastructure beans created before the application's
 * beans; they read {@code warden.rate-limit.*} straight from the environment and reach the
 * {@link Warden} client only at the first call.
 */
@AutoConfiguration(after = WardenAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(Warden.class)
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
public final class WardenRateLimitAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RateLimitOperationSource wardenRateLimitOperationSource(Environment environment, BeanFactory beanFactory) {
		return new RateLimitOperationSource(new MethodExpressions(beanFactory), environment);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static Advisor wardenRateLimitAdvisor(RateLimitOperationSource wardenRateLimitOperationSource,
			Environment environment, ObjectProvider<Warden> warden, ObjectProvider<RateLimitListener> listeners) {
		RateLimitInterceptor interceptor = new RateLimitInterceptor(wardenRateLimitOperationSource,
				SingletonSupplier.of(() -> warden.getObject()::getRateLimiter),
				SingletonSupplier.of(() -> CompositeListeners.rateLimitListener(listeners.orderedStream().toList())));
		StaticMethodMatcherPointcutAdvisor advisor = new StaticMethodMatcherPointcutAdvisor(interceptor) {
			@Override
			public boolean matches(Method method, Class<?> targetClass) {
				return wardenRateLimitOperationSource.getOperation(method, targetClass) != null;
			}
		};
		advisor.setOrder(Binder.get(environment)
			.bindOrCreate("warden", WardenProperties.class)
			.getRateLimit()
			.getAspectOrder());
		return advisor;
	}

	@Bean
	static RateLimitAnnotationValidator wardenRateLimitAnnotationValidator(
			RateLimitOperationSource wardenRateLimitOperationSource) {
		return new RateLimitAnnotationValidator(wardenRateLimitOperationSource);
	}

	/** The 429 answer, in a web application with problem details left on. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	@ConditionalOnWebApplication
	@ConditionalOnBooleanProperty(name = "warden.rate-limit.problem-details.enabled", matchIfMissing = true)
	static class ProblemDetails {

		@Bean
		@ConditionalOnMissingBean(RateLimitProblems.class)
		RateLimitProblems wardenRateLimitProblems() {
			return new RateLimitProblems();
		}

		/**
		 * In Spring MVC, the refusal goes to the {@link RateLimitProblems} bean before any of the
		 * application's exception handlers.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
		static class Servlet {

			@Bean
			RateLimitExceptionResolver wardenRateLimitExceptionResolver(RateLimitProblems problems,
					ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter,
					ObjectProvider<ContentNegotiationManager> contentNegotiation) {
				RateLimitExceptionResolver resolver = new RateLimitExceptionResolver(problems);
				RequestMappingHandlerAdapter adapter = handlerAdapter.getIfUnique();
				if (adapter != null) {
					resolver.setMessageConverters(adapter.getMessageConverters());
				}
				ContentNegotiationManager negotiation = contentNegotiation.getIfUnique();
				if (negotiation != null) {
					resolver.setContentNegotiationManager(negotiation);
				}
				return resolver;
			}

		}

	}

}
