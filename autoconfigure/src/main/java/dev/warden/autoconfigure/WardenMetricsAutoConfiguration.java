package dev.warden.autoconfigure;

import dev.warden.Warden;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.metrics.WardenMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Warden's meters ({@link WardenMetrics}), when the application has a {@link MeterRegistry} (Spring
 * Boot's Actuator gives it one). Turned off with {@code warden.metrics.enabled=false}.
 */
@AutoConfiguration(afterName = {
		// Spring Boot 4, then 3: where the application's registry is defined.
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration" },
		after = WardenAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = { "warden.enabled", "warden.metrics.enabled" }, matchIfMissing = true)
public final class WardenMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WardenMetrics wardenMetrics(MeterRegistry registry, ObjectProvider<Warden> warden,
			ObjectProvider<LockCalls> lockCalls, WardenProperties properties) {
		// The client and the lock calls are looked up when first read: both are told about events by this bean.
		WardenMetrics metrics = new WardenMetrics(registry, () -> {
			LockCalls calls = lockCalls.getIfAvailable();
			return (calls != null) ? calls.waiting() : 0;
		}, queue -> warden.getObject().getDelayedQueue(queue).stats(),
				properties.getMetrics().getQueueRefreshInterval());
		metrics.registerFleetGauge(() -> warden.getObject().fleet().size());
		return metrics;
	}

}
