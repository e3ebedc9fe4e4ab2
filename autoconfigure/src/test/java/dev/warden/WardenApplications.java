package dev.warden;

import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.autoconfigure.WardenTaskAutoConfiguration;
import dev.warden.test.redis.RedisNode;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Application contexts with the auto-configurations a Spring Boot application with the starter
 * has: Spring Data Redis, AOP and Warden's.
 */
public final class WardenApplications {

	/**
	 * Spring Boot's Redis auto-configuration, of the Boot line on the class path: the same tests
	 * also run on Boot 3.5, in the {@code boot3} module.
	 */
	public static final Class<?> REDIS_AUTO_CONFIGURATION = firstPresent(
			"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
			"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");

	/**
	 * Spring Boot's JDBC and transaction auto-configurations (DataSource, its transaction manager,
	 * JdbcTemplate, TransactionTemplate), of the Boot line on the class path.
	 */
	public static final Class<?>[] JDBC_AUTO_CONFIGURATIONS = {
			firstPresent("org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"),
			firstPresent("org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"),
			firstPresent("org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration"),
			firstPresent("org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
					"org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration") };

	private WardenApplications() {
	}

	/** A context runner with those auto-configurations, and no Redis address of its own. */
	public static ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(REDIS_AUTO_CONFIGURATION,
				AopAutoConfiguration.class, WardenAutoConfiguration.class, WardenLockAutoConfiguration.class,
				WardenTaskAutoConfiguration.class));
	}

	/** A context runner with those auto-configurations, on {@code node}. */
	public static ApplicationContextRunner runner(RedisNode node) {
		return runner().withPropertyValues("spring.data.redis.host=" + node.host(),
				"spring.data.redis.port=" + node.port());
	}

	private static Class<?> firstPresent(String... names) {
		for (String name : names) {
			try {
				return Class.forName(name, false, WardenApplications.class.getClassLoader());
			}
			catch (ClassNotFoundException ex) {
				// The other Boot line's.
			}
		}
		throw new IllegalStateException("None of " + String.join(", ", names) + " is on the class path");
	}

}
