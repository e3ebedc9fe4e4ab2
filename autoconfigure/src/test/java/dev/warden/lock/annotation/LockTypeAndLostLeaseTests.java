package dev.warden.lock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockLostException;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockTypeAndLostLeaseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class,
				WardenAutoConfiguration.class, WardenLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
				"spring.data.redis.port=" + redis.node().port(), "warden.lock.key-prefix=")
		.withUserConfiguration(Config.class);

	@Test
	void readMethodsShareTheLockAndWriteMethodsExcludeThem() {
		runner.run(context -> {
			Documents documents = context.getBean(Documents.class);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				CyclicBarrier bothReading = new CyclicBarrier(2);
				Future<Boolean> first = threads.submit(() -> documents.read("d", bothReading));
				Future<Boolean> second = threads.submit(() -> documents.read("d", bothReading));
				assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
				assertThat(second.get(30, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(documents.write("d")).isTrue();
			assertThat(documents.fair("f")).isTrue();
		});
	}

	@Test
	void aSimpleLockMethodHoldsThePlainMutexAndANestedCallOnTheSameNameFails() {
		runner.run(context -> {
			Documents documents = context.getBean(Documents.class);
			assertThat(documents.simple("s")).isTrue();
			assertThat(documents.simpleWithin("other", "s", documents)).as("another name nests").isTrue();
			assertThatThrownBy(() -> documents.simpleWithin("s", "s", documents))
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("'report:s'")
				.hasMessageContaining("not reentrant");
			assertThat(context.getBean(Warden.class).getSimpleLock("report:s").isLocked())
				.as("the outer call released its lock").isFalse();
		});
	}

	@Test
	void aLeaseLostWhileTheMethodRanFailsTheCallAfterItAndIsReported() {
		runner.run(context -> {
			Documents documents = context.getBean(Documents.class);
			assertThatThrownBy(() -> documents.losesItsLock("lost")).isInstanceOf(LockLostException.class)
				.hasMessageContaining("[job:lost]")
				.hasMessageContaining("losesItsLock");
			assertThat(context.getBean(Config.class).lost).containsExactly("job:lost");
		});
	}

	@Test
	void aLostLeaseCanBeOnlyReported() {
		runner.withPropertyValues("warden.lock.fail-on-lost-lease=false").run(context -> {
			assertThat(context.getBean(Documents.class).losesItsLock("quiet")).isEqualTo("done");
			assertThat(context.getBean(Config.class).lost).containsExactly("job:quiet");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		final List<String> lost = new CopyOnWriteArrayList<>();

		@Bean
		LockListener recordingListener() {
			return new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					lost.add(lockName);
				}
			};
		}

		@Bean
		Documents documents(Warden warden) {
			return new Documents(warden);
		}

	}

	static class Documents {

		private final Warden warden;

		Documents(Warden warden) {
			this.warden = warden;
		}

		@DistributedLock(type = LockType.READ, key = "#id", name = "doc", waitTime = 10_000)
		public boolean read(String id, CyclicBarrier bothReading) throws Exception {
			// Only passes if both readers hold the read lock at once.
			bothReading.await(10, TimeUnit.SECONDS);
			return warden.getReadWriteLock("doc:" + id).readLock().isHeldByCurrentThread();
		}

		@DistributedLock(type = LockType.WRITE, key = "#id", name = "doc")
		public boolean write(String id) {
			return warden.getReadWriteLock("doc:" + id).writeLock().isHeldByCurrentThread();
		}

		@DistributedLock(type = LockType.FAIR, key = "#id", name = "queue")
		public boolean fair(String id) {
			return warden.getFairLock("queue:" + id).isHeldByCurrentThread();
		}

		@DistributedLock(type = LockType.SIMPLE, key = "#id", name = "report")
		public boolean simple(String id) {
			return warden.getSimpleLock("report:" + id).isHeldByCurrentThread();
		}

		@DistributedLock(type = LockType.SIMPLE, key = "#outer", name = "report")
		public boolean simpleWithin(String outer, String inner, Documents self) {
			return self.simple(inner);
		}

		@DistributedLock(key = "#id", name = "job", leaseTime = 30_000)
		public String losesItsLock(String id) {
			// Someone force-unlocks it mid-run, as an expired lease would lose it.
			warden.getLock("job:" + id).forceUnlock();
			return "done";
		}

	}

}
