package dev.warden.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.lock.interceptor.LockOperationSourceAdvisor;
import dev.warden.lock.interceptor.ReactorHandler;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.interceptor.DelayedTaskOperation;
import dev.warden.task.interceptor.DelayedTaskOperationSource;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class WardenAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node());

	@Test
	void defaultsGiveAWardenOnTheApplicationsRedisAndTheLockAdvisor() {
		runner.run(context -> {
			assertThat(context).hasSingleBean(Warden.class).hasSingleBean(LockOperationSourceAdvisor.class)
				.hasSingleBean(ReactorHandler.class);
			WardenProperties properties = context.getBean(WardenProperties.class);
			assertThat(properties.getLock().getWatchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(properties.lockKeyPrefix()).isEqualTo("warden:lock:");
			assertThat(properties.getLock().getDefaultWaitTime()).isZero();
			assertThat(properties.getCommandTimeout()).isEqualTo(Duration.ofSeconds(10));
			assertThat(context.getBean(LockOperationSourceAdvisor.class).getOrder())
				.isEqualTo(WardenProperties.Lock.DEFAULT_ASPECT_ORDER);

			Warden warden = context.getBean(Warden.class);
			warden.getLock("auto").lock();
			assertThat(redis.node().call("EXISTS", "auto")).isEqualTo(1L);
			warden.getLock("auto").unlock();
		});
	}

	@Test
	void bindsProperties() {
		runner.withPropertyValues("warden.client-id=orders-1", "warden.lock.aspect-order=42",
				"warden.lock.watchdog-timeout=5s", "warden.command-timeout=2s", "warden.lock.key-prefix=app:",
				"warden.lock.default-wait-time=250ms", "warden.fleet.announce-interval=1s", "warden.connections=3")
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				assertThat(warden.getClientId()).isEqualTo("orders-1");
				assertThat(context.getBean(LockOperationSourceAdvisor.class).getOrder()).isEqualTo(42);
				WardenProperties properties = context.getBean(WardenProperties.class);
				assertThat(properties.getLock().getDefaultWaitTime()).isEqualTo(Duration.ofMillis(250));
				assertThat(properties.getLock().getKeyPrefix()).isEqualTo("app:");
				assertThat(properties.getConnections()).isEqualTo(3);
				warden.getLock("leased").lock();
				assertThat(warden.getLock("leased").remainingTimeToLive()).isBetween(1L, 5_000L);
				warden.getLock("leased").unlock();
				assertThat((Long) redis.node().call("PTTL", "warden:{fleet}:instances")).as("live for three intervals")
					.isBetween(1L, 3_001L);
			});
	}

	@Test
	void bindsDelayedTaskProperties() {
		runner.withPropertyValues("warden.delayed-task.max-attempts=7", "warden.delayed-task.backoff=2s",
				"warden.delayed-task.max-backoff=1m", "warden.delayed-task.visibility-timeout=90s",
				"warden.delayed-task.concurrency=3", "warden.delayed-task.sweep-interval=5s",
				"warden.delayed-task.shutdown-grace=1s", "warden.delayed-task.claim-ahead=20ms")
			.run(context -> {
				WardenProperties.DelayedTask tasks = context.getBean(WardenProperties.class).getDelayedTask();
				assertThat(tasks.toConsumerOptions()).isEqualTo(new ConsumerOptions(7, Duration.ofSeconds(2),
						Duration.ofMinutes(1), Duration.ofSeconds(90)));
				assertThat(tasks.getConcurrency()).isEqualTo(3);
				assertThat(tasks.getSweepInterval()).isEqualTo(Duration.ofSeconds(5));
				assertThat(tasks.getShutdownGrace()).isEqualTo(Duration.ofSeconds(1));
				assertThat(tasks.getClaimAhead()).isEqualTo(Duration.ofMillis(20));
			});
	}

	@Test
	void claimAheadOutOfRangeFailsStartupNamingIt() {
		runner.withPropertyValues("warden.delayed-task.claim-ahead=2s").run(context -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage());
			}
			assertThat(messages.toString()).contains("warden.delayed-task.claim-ahead must be between 0 and 1 s");
		});
	}

	@Test
	void outOfRangeDurationsAndCountsFailStartupNamingTheProperty() {
		for (String property : new String[] { "warden.command-timeout=0s", "warden.lock.watchdog-timeout=1ms",
				"warden.lock.replica-sync.timeout=-1s", "warden.delayed-task.concurrency=0",
				"warden.delayed-task.sweep-interval=0s", "warden.delayed-task.shutdown-grace=-1s",
				"warden.redlock.node-timeout=0ms", "warden.fleet.announce-interval=0s", "warden.connections=0",
				"warden.connections=17" }) {
			runner.withPropertyValues(property).run(context -> {
				assertThat(context).as(property).hasFailed();
				StringBuilder messages = new StringBuilder();
				for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
					messages.append(cause.getMessage());
				}
				assertThat(messages.toString()).as(property).contains(property.substring(0, property.indexOf('=')) + " must");
			});
		}
	}

	@Test
	void aQueuesOwnPropertiesOverrideTheGeneralOnesAndTheAnnotationOverridesThem() {
		runner.withPropertyValues("warden.delayed-task.max-attempts=4",
				"warden.delayed-task.queues.reports.visibility-timeout=20m",
				"warden.delayed-task.queues.reports.max-attempts=2",
				"warden.delayed-task.queues.annotated.max-attempts=9")
			.withUserConfiguration(QueueOptions.class)
			.run(context -> {
				DelayedTaskOperationSource operations = context.getBean(DelayedTaskOperationSource.class);
				DelayedTaskOperation reports = operations.operationsOf(QueueOptions.Reports.class).stream()
					.filter(operation -> operation.queue().equals("reports"))
					.findFirst()
					.orElseThrow();
				assertThat(reports.options().visibilityTimeout()).isEqualTo(Duration.ofMinutes(20));
				assertThat(reports.options().maxAttempts()).isEqualTo(2);
				assertThat(reports.options().backoff()).isEqualTo(Duration.ofSeconds(10));
				DelayedTaskOperation annotated = operations.operationsOf(QueueOptions.Reports.class).stream()
					.filter(operation -> operation.queue().equals("annotated"))
					.findFirst()
					.orElseThrow();
				assertThat(annotated.options().maxAttempts()).as("the annotation's").isEqualTo(3);
				DelayedTaskOperation plain = operations.operationsOf(QueueOptions.Reports.class).stream()
					.filter(operation -> operation.queue().equals("plain"))
					.findFirst()
					.orElseThrow();
				assertThat(plain.options().maxAttempts()).as("the general one").isEqualTo(4);
			});
	}

	@Test
	void aQueuesPropertyOutOfRangeFailsStartupNamingTheQueue() {
		runner.withPropertyValues("warden.delayed-task.queues.reports.max-attempts=0").run(context -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage());
			}
			assertThat(messages.toString()).contains("warden.delayed-task.queues.reports")
				.contains("maxAttempts must be at least 1");
		});
	}

	@Test
	void invalidDelayedTaskPropertyFailsStartupNamingIt() {
		runner.withPropertyValues("warden.delayed-task.max-attempts=0").run(context -> {
			assertThat(context).hasFailed();
			Throwable cause = context.getStartupFailure();
			StringBuilder messages = new StringBuilder();
			for (; cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage());
			}
			assertThat(messages.toString()).contains("warden.delayed-task").contains("maxAttempts must be at least 1");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnWarden() {
		runner.withUserConfiguration(OwnWarden.class).run(context -> {
			assertThat(context).hasSingleBean(Warden.class);
			assertThat(context.getBean(Warden.class).getClientId()).isEqualTo("own");
		});
	}

	@Test
	void switchedOffByProperty() {
		runner.withPropertyValues("warden.enabled=false").run(context -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(Warden.class)
				.doesNotHaveBean(LockOperationSourceAdvisor.class);
		});
	}

	@Test
	void backsOffWithoutLettuceOrSpringDataRedis() {
		runner.withClassLoader(new FilteredClassLoader(RedisClient.class)).run(context -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(Warden.class);
		});
		runner.withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class)).run(context -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(Warden.class);
		});
	}

	@Test
	void reactorHandlerOnlyWithReactor() {
		runner.withClassLoader(new FilteredClassLoader("reactor.core.publisher")).run(context -> {
			assertThat(context).doesNotHaveBean(ReactorHandler.class);
		});
	}

	@Test
	void usesTheApplicationsLockListener() {
		runner.withUserConfiguration(Listener.class).withPropertyValues("warden.lock.watchdog-timeout=150ms")
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				warden.getLock("listened").lock();
				redis.node().call("DEL", "listened");
				assertThat(context.getBean(Listener.class).lost.await(5, TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void redisDownFailsStartupWithTypedException() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, WardenAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=1", "spring.data.redis.timeout=500ms",
					"spring.data.redis.connect-timeout=500ms")
			.run(context -> {
				assertThat(context).hasFailed();
				Throwable cause = context.getStartupFailure();
				while (cause != null && !(cause instanceof RedisUnavailableException)) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(RedisUnavailableException.class)
					.hasMessageContaining("Cannot connect to Redis");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class QueueOptions {

		@org.springframework.context.annotation.Bean
		Reports reports() {
			return new Reports();
		}

		static class Reports {

			@dev.warden.task.annotation.DelayedTask(queue = "reports", delay = "1h")
			public void report(String id) {
			}

			@dev.warden.task.annotation.DelayedTask(queue = "annotated", delay = "1h", maxAttempts = 3)
			public void annotated(String id) {
			}

			@dev.warden.task.annotation.DelayedTask(queue = "plain", delay = "1h")
			public void plain(String id) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnWarden {

		@Bean(destroyMethod = "close")
		Warden ownWarden(LettuceConnectionFactory factory) {
			return Warden.builder(factory.getRequiredNativeClient()).clientId("own").build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		final CountDownLatch lost = new CountDownLatch(1);

		@Bean
		LockListener lockListener() {
			return new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					lost.countDown();
				}
			};
		}

	}

}
