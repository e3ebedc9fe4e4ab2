package dev.warden.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.warden.WardenApplications;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Without a Warden client (switched off, or no Lettuce connection factory), a {@code @DelayedTask}
 * method is never run in place of being scheduled, and {@code @DistributedLock} methods run without
 * a lock, as one WARN line says.
 */
@ExtendWith(OutputCaptureExtension.class)
class WardenAbsentTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class,
				WardenAutoConfiguration.class, WardenLockAutoConfiguration.class, WardenTaskAutoConfiguration.class,
				WardenAbsentAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
				"spring.data.redis.port=" + redis.node().port())
		.withUserConfiguration(Services.class);

	@Test
	void switchedOffADelayedTaskFailsWithoutRunningAndALockedMethodRunsUnlocked(CapturedOutput output) {
		runner.withPropertyValues("warden.enabled=false").run(context -> {
			Orders orders = context.getBean(Orders.class);

			assertThatIllegalStateException().isThrownBy(() -> orders.closeIfUnpaid("o-1"))
				.withMessageContaining("Orders.closeIfUnpaid(String)")
				.withMessageContaining("warden.enabled=false")
				.withMessageContaining("Nothing was run");
			assertThat(orders.ran()).isEmpty();

			assertThat(orders.purchase("apple")).isEqualTo("bought apple");
			assertThat(redis.node().call("DBSIZE")).isEqualTo(0L);
		});
		assertThat(output).contains("Warden is switched off (warden.enabled=false): 1 @DistributedLock method(s) run "
				+ "without a lock, 0 @RateLimited method(s) without a rate limit, and 1 @DelayedTask method(s) fail "
				+ "when called");
	}

	@Test
	void withoutALettuceConnectionFactoryADelayedTaskFailsSayingWhy() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WardenAutoConfiguration.class,
					WardenLockAutoConfiguration.class, WardenTaskAutoConfiguration.class,
					WardenAbsentAutoConfiguration.class))
			.withUserConfiguration(Services.class)
			.run(context -> {
				Orders orders = context.getBean(Orders.class);
				assertThatIllegalStateException().isThrownBy(() -> orders.closeIfUnpaid("o-2"))
					.withMessageContaining("there is no Warden client");
				assertThat(orders.ran()).isEmpty();
			});
	}

	@Test
	void withAWardenClientTheGuardIsAbsent() {
		runner.run(context -> assertThat(context).doesNotHaveBean("wardenAbsentDelayedTaskAdvisor"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		private final List<String> ran = new ArrayList<>();

		/** The calls that ran (through the proxy: a field read would see the proxy's own). */
		public List<String> ran() {
			return ran;
		}

		@DelayedTask(delay = "30m")
		public void closeIfUnpaid(String orderId) {
			ran.add(orderId);
		}

		@DistributedLock(name = "stock", key = "#sku")
		public String purchase(String sku) {
			return "bought " + sku;
		}

	}

}
