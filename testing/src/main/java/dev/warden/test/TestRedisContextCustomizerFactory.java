package dev.warden.test;

import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Adds Warden's test beans to the context of a {@link WardenTest} class, and points it at the
 * {@link TestRedis} of the JVM when the test configures no Redis of its own.
 */
final class TestRedisContextCustomizerFactory implements ContextCustomizerFactory {

	/** Any of these set means the test has a Redis of its own. */
	static final List<String> REDIS_SETTINGS = List.of("spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.master", "spring.data.redis.cluster.nodes");

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		boolean annotated = TestContextAnnotationUtils.hasAnnotation(testClass, WardenTest.class)
				|| MergedAnnotations.from(testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
					.isPresent(WardenTest.class);
		return annotated ? new TestRedisCustomizer() : null;
	}

	/** Equal to every other: the contexts it customizes can be cached and shared as usual. */
	static final class TestRedisCustomizer implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			if (context instanceof BeanDefinitionRegistry registry) {
				registry.registerBeanDefinition(WardenTestConfiguration.class.getName(),
						new RootBeanDefinition(WardenTestConfiguration.class));
			}
			ConfigurableEnvironment environment = context.getEnvironment();
			if (REDIS_SETTINGS.stream().anyMatch(environment::containsProperty)) {
				return;
			}
			TestRedis redis = TestRedis.shared();
			environment.getPropertySources()
				.addFirst(new MapPropertySource("wardenTestRedis",
						Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
			context.getBeanFactory().registerSingleton("wardenTestRedis", redis);
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof TestRedisCustomizer;
		}

		@Override
		public int hashCode() {
			return TestRedisCustomizer.class.hashCode();
		}

	}

}
