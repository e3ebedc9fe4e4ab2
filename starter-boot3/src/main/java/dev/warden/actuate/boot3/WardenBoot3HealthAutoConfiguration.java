package dev.warden.actuate.boot3;

import dev.warden.Warden;
import dev.warden.actuate.HealthMonitor;
import dev.warden.actuate.WardenAdmin;
import dev.warden.autoconfigure.WardenActuatorAutoConfiguration;
import dev.warden.autoconfigure.WardenProperties;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code warden} health indicator of a Spring Boot 3.5 application with Actuator.
 */
@AutoConfiguration(after = WardenActuatorAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(WardenAdmin.class)
@ConditionalOnEnabledHealthIndicator("warden")
public class WardenBoot3HealthAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	HealthMonitor wardenHealthMonitor(Warden warden, WardenAdmin admin, WardenProperties properties) {
		return WardenActuatorAutoConfiguration.healthMonitor(warden, admin, properties);
	}

	@Bean
	@ConditionalOnMissingBean(name = "wardenHealthIndicator")
	WardenBoot3HealthIndicator wardenHealthIndicator(WardenAdmin admin, WardenProperties properties,
			HealthMonitor wardenHealthMonitor) {
		return new WardenBoot3HealthIndicator(admin, properties.getHealth().getDeadLetterStatus());
	}

}
