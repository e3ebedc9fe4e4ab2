package dev.warden.lock.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

import dev.warden.WardenApplications;
import dev.warden.WardenClients;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locking many distinct names, the normal use of {@code key = "#id"}, leaves Redis no bigger than a
 * constant: nothing at all without fencing tokens, and with them only the fencing counters, at most
 * one per Redis Cluster hash slot (16,384), however many names were locked.
 */
class BoundedLockKeysTests {

	private static final int NAMES = 20_000;

	private static final int HASH_SLOTS = 16_384;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ExecutorService threads = Executors.newFixedThreadPool(8);

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void twentyThousandDistinctNamesLeaveNoKeyWithoutTokensAndOnlyTheSlotsCountersWithThem() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class,
					WardenAutoConfiguration.class, WardenLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
					"spring.data.redis.port=" + redis.node().port())
			.withUserConfiguration(Entities.class)
			.run(context -> {
				Entity entity = context.getBean(Entity.class);

				callForEveryName(entity::touch);
				assertThat(WardenClients.keysBesidesTheFleet(redis.node())).as("keys left without tokens").isZero();

				callForEveryName(entity::fence);
				long keys = WardenClients.keysBesidesTheFleet(redis.node());
				List<?> counters = (List<?>) redis.node().call("KEYS", "warden_fencing:{*}");
				assertThat(keys).as("keys left with tokens").isLessThanOrEqualTo(HASH_SLOTS).isEqualTo(counters.size());
				for (Object counter : counters.subList(0, 100)) {
					assertThat(redis.node().call("TYPE", (String) counter)).isEqualTo("string");
				}
			});
	}

	private void callForEveryName(LongConsumer call) throws Exception {
		List<Future<?>> batches = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			int first = t;
			batches.add(threads.submit(() -> {
				for (long id = first; id < NAMES; id += 8) {
					call.accept(id);
				}
			}));
		}
		for (Future<?> batch : batches) {
			batch.get();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Entities {

		@Bean
		Entity entity() {
			return new Entity();
		}

	}

	static class Entity {

		@DistributedLock(name = "entity", key = "#id")
		public void touch(long id) {
		}

		@DistributedLock(name = "fenced", key = "#id", fencingToken = true)
		public void fence(long id) {
			assertThat(LockContext.currentToken()).isPresent();
		}

	}

}
