package dev.warden.boot3;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.autoconfigure.WardenTaskAutoConfiguration;
import dev.warden.json.Jackson2Binding;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Spring Boot 3.5 the application's Jackson 2 {@link ObjectMapper}, with its settings, writes task
 * arguments and programmatic queues' payloads, and no Jackson 3 is on the classpath.
 */
class Boot3PayloadMapperTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void theApplicationsObjectMapperWritesTaskArgumentsAndQueuePayloads() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
					WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class, WardenAutoConfiguration.class,
					WardenLockAutoConfiguration.class, WardenTaskAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
					"spring.data.redis.port=" + redis.node().port(), "spring.jackson.property-naming-strategy=SNAKE_CASE")
			.withUserConfiguration(Reminders.class)
			.run(context -> {
				assertThat(context).hasNotFailed();
				Warden warden = context.getBean(Warden.class);
				assertThat(warden.getJson()).isInstanceOf(Jackson2Binding.class);
				assertThat(((Jackson2Binding) warden.getJson()).getMapper()).isSameAs(context.getBean(ObjectMapper.class));

				context.getBean(Invoices.class).remind(new Invoice("i-1", 120, Instant.parse("2026-07-07T07:07:07Z")));
				List<Object> stored = List.copyOf((List<?>) redis.node().call("HVALS", "warden:task:{invoices}:tasks"));
				assertThat(stored).containsExactly(
						(Object) "{\"invoice_id\":\"i-1\",\"amount_due\":120,\"issued_at\":\"2026-07-07T07:07:07Z\"}");

				warden.getDelayedQueue("plain", Invoice.class)
					.schedule("p-1", new Invoice("i-2", 5, Instant.parse("2026-07-07T07:07:08Z")), Duration.ofHours(1));
				assertThat(redis.node().call("HGET", "warden:task:{plain}:tasks", "p-1"))
					.isEqualTo("{\"invoice_id\":\"i-2\",\"amount_due\":5,\"issued_at\":\"2026-07-07T07:07:08Z\"}");
			});
	}

	@Test
	void noJackson3IsOnTheClasspath() {
		assertThat(getClass().getClassLoader().getResource("tools/jackson/databind/json/JsonMapper.class")).isNull();
	}

	public record Invoice(String invoiceId, int amountDue, Instant issuedAt) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Reminders {

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
