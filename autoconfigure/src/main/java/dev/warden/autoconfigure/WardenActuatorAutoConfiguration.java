package dev.warden.autoconfigure;

import dev.warden.Warden;
import dev.warden.actuate.WardenAdmin;
import dev.warden.actuate.WardenEndpoint;
import dev.warden.actuate.HealthMonitor;
import dev.warden.actuate.WardenHealthIndicator;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.ratelimit.interceptor.RateLimitOperationSource;
import dev.warden.metrics.WardenMetrics;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What an operator sees and does: the {@code warden} Actuator endpoint with its dashboard page, and
 * the {@code warden} health indicator (on Spring Boot 4; the Boot 3 starter brings its own). Each
 * part appears only when the application has Actuator, and the endpoint only where the Actuator
 * exposes it.
 */
@AutoConfiguration(after = { WardenAutoConfiguration.class, WardenLockAutoConfiguration.class,
		WardenRateLimitAutoConfiguration.class, WardenMetricsAutoConfiguration.class })
@ConditionalOnBean(Warden.class)
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
public final class WardenActuatorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WardenAdmin wardenAdmin(Warden warden, ObjectProvider<LockCalls> lockCalls, WardenProperties properties,
			RedisConnectionFactory connectionFactory, ObjectProvider<RateLimitOperationSource> rateLimits) {
		String topology = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? RedisTopology.describe(lettuce) : "Redis";
		WardenAdmin admin = new WardenAdmin(warden, topology, properties.getEndpoint().isWriteOperations());
		admin.setWriteScope(properties.getEndpoint().getWriteScope());
		lockCalls.ifAvailable(calls -> admin.setLockCalls(calls::waiting, () -> calls.holds().stream()
			.map(hold -> new WardenAdmin.LockHold(hold.names(), hold.kind(), hold.method(), hold.since(), hold.locks()))
			.toList()));
		rateLimits.ifAvailable(operations -> admin.setRateLimits(() -> operations.operations().stream()
			.map(operation -> new WardenAdmin.RateLimitedMethod(operation.name(), operation.limit(),
					!operation.keys().isEmpty(), operation.describe()))
			.toList()));
		return admin;
	}

	/**
	 * The health indicator's background check, per {@code warden.health.*}, given to the admin whose
	 * {@link WardenAdmin#health()} reads it. For the health configuration of either Boot line.
	 * @param warden the client
	 * @param admin the admin
	 * @param properties Warden's properties
	 * @return the monitor, running; close it with the context
	 */
	public static HealthMonitor healthMonitor(Warden warden, WardenAdmin admin, WardenProperties properties) {
		WardenProperties.Health health = properties.getHealth();
		HealthMonitor monitor = new HealthMonitor(warden, health.getCheckInterval(), health.getTimeout(),
				health.getMemoryThreshold(), health.getMemoryStatus());
		admin.setHealthMonitor(monitor);
		return monitor;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	@ConditionalOnBean(WardenMetrics.class)
	static class LatenessConfiguration {

		LatenessConfiguration(WardenAdmin admin, WardenMetrics metrics) {
			admin.setLateness(metrics::lateness);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint")
	@ConditionalOnAvailableEndpoint(WardenEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		WardenEndpoint wardenEndpoint(WardenAdmin admin) {
			LoggerFactory.getLogger(Warden.class).info("Warden endpoint exposed, its dashboard at <actuator>/warden/dashboard "
					+ "(write operations {})", admin.writeOperations() ? "on, for " + admin.writeScope().name()
						.toLowerCase(java.util.Locale.ROOT).replace('_', '-') : "off");
			return new WardenEndpoint(admin);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
	@ConditionalOnEnabledHealthIndicator("warden")
	static class HealthConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		HealthMonitor wardenHealthMonitor(Warden warden, WardenAdmin admin, WardenProperties properties) {
			return healthMonitor(warden, admin, properties);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
		@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
		static class MemoryGaugeConfiguration {

			/** {@code warden.redis.memory.usage}: the share of Redis's maxmemory in use, as the health check last read it. */
			MemoryGaugeConfiguration(io.micrometer.core.instrument.MeterRegistry registry, HealthMonitor monitor) {
				io.micrometer.core.instrument.Gauge.builder("warden.redis.memory.usage", monitor, HealthMonitor::memoryUsage)
					.description("The share of Redis's maxmemory in use (0 without a limit), as the health check last "
							+ "read it (registered with the health indicator)")
					.register(registry);
			}

		}

		@Bean
		@ConditionalOnMissingBean(name = "wardenHealthIndicator")
		WardenHealthIndicator wardenHealthIndicator(WardenAdmin admin, WardenProperties properties,
				HealthMonitor wardenHealthMonitor) {
			return new WardenHealthIndicator(admin, properties.getHealth().getDeadLetterStatus());
		}

	}

}
