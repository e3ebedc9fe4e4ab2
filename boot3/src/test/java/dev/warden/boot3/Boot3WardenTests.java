package dev.warden.boot3;

import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedSimpleLock;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * That this module really runs on the Spring Boot 3.5 line, and every kind of lock on it. Warden's
 * auto-configuration, annotation, delayed and recurring task tests run here as well, unchanged
 * (see this module's build), and {@link Boot3SampleTests} starts the sample.
 */
class Boot3WardenTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void theModuleRunsOnBoot35WithFramework62AndLettuce6() {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		assertThat(SpringVersion.getVersion()).startsWith("6.2.");
		assertThat(RedisClient.class.getPackage().getImplementationVersion()).startsWith("6.");
		assertThat(WardenApplications.REDIS_AUTO_CONFIGURATION.getName())
			.isEqualTo("org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");
	}

	@Test
	void everyLockKindWorks() {
		WardenApplications.runner(redis.node()).run(context -> {
			assertThat(context).hasNotFailed().hasSingleBean(Warden.class);
			Warden warden = context.getBean(Warden.class);
			DistributedReentrantLock lock = warden.getLock("boot3:lock");
			assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue();
			assertThat(lock.getHoldCount()).isEqualTo(1);
			lock.unlock();
			DistributedSimpleLock simple = warden.getSimpleLock("boot3:simple");
			assertThat(simple.lockWithToken()).isPositive();
			simple.unlock();
			assertThat(warden.getFairLock("boot3:fair").tryLock(0, TimeUnit.SECONDS)).isTrue();
			assertThat(warden.getReadWriteLock("boot3:rw").readLock().tryLock(0, TimeUnit.SECONDS)).isTrue();
			assertThat(warden.getSemaphore("boot3:semaphore").trySetPermits(1)).isTrue();
			assertThat(warden.getSemaphore("boot3:semaphore").tryAcquire(1, 0, TimeUnit.SECONDS)).isTrue();
			assertThat(warden.getCountDownLatch("boot3:latch").trySetCount(1)).isTrue();
			warden.getCountDownLatch("boot3:latch").countDown();
			assertThat(warden.getCountDownLatch("boot3:latch").await(1, TimeUnit.SECONDS)).isTrue();
		});
	}

}
