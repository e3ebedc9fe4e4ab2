package dev.warden;

import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.autoconfigure.WardenTaskAutoConfiguration;
import dev.warden.test.redis.RedisNode;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Application contexts with the auto-configurations a Spring Boot application with the starter
 * has: Spring Data Redis, AOP and Warden's.
 */
public final class WardenApplications {

	private WardenApplications() {
	}

	/** A context runner with those auto-configurations, and no Redis address of its own. */
	public static ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				AopAutoConfiguration.class, WardenAutoConfiguration.class, WardenLockAutoConfiguration.class,
				WardenTaskAutoConfiguration.class));
	}

	/** A context runner with those auto-configurations, on {@code node}. */
	public static ApplicationContextRunner runner(RedisNode node) {
		return runner().withPropertyValues("spring.data.redis.host=" + node.host(),
				"spring.data.redis.port=" + node.port());
	}

}
