package dev.warden.task.annotation;

import java.util.List;

import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.autoconfigure.WardenTaskAutoConfiguration;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** Task arguments, and programmatic queues' payloads, are written with the application's own JsonMapper. */
class TaskPayloadMapperTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void theApplicationsJsonMapperWritesTaskArgumentsAndQueuePayloads() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class,
					WardenAutoConfiguration.class, WardenLockAutoConfiguration.class, WardenTaskAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
					"spring.data.redis.port=" + redis.node().port())
			.withUserConfiguration(SnakeCase.class)
			.run(context -> {
				context.getBean(Invoices.class).remind(new Invoice("i-1", 120));
				List<Object> stored = List.copyOf((List<?>) redis.node().call("HVALS", "warden:task:{invoices}:tasks"));
				assertThat(stored).containsExactly((Object) "{\"invoice_id\":\"i-1\",\"amount_due\":120}");

				context.getBean(Warden.class).getDelayedQueue("plain", Invoice.class)
					.schedule("p-1", new Invoice("i-2", 5), java.time.Duration.ofHours(1));
				assertThat(redis.node().call("HGET", "warden:task:{plain}:tasks", "p-1"))
					.isEqualTo("{\"invoice_id\":\"i-2\",\"amount_due\":5}");
			});
	}

	public record Invoice(String invoiceId, int amountDue) {
	}

	@Configuration(proxyBeanMethods = false)
	static class SnakeCase {

		@Bean
		JsonMapper jsonMapper() {
			return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
		}

		@Bean
		Invoices invoices() {
			return new Invoices();
		}

	}

	static class Invoices {

		@DelayedTask(queue = "invoices", delay = "1h", id = "#invoice.invoiceId")
		public void remind(Invoice invoice) {
		}

	}

}
