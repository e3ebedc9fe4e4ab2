package dev.warden.lock;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.test.redis.RedisClusterExtension;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The lock on a real three-master Redis Cluster, through Lettuce's cluster client. */
class ClusterLockTests {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private RedisClusterClient firstClient;

	private RedisClusterClient secondClient;

	@AfterEach
	void closeClients() {
		threads.shutdownNow();
		for (RedisClusterClient client : new RedisClusterClient[] { firstClient, secondClient }) {
			if (client != null) {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

	private RedisClusterClient clusterClient() {
		return RedisClusterClient.create(redis.cluster().uris().stream().map(RedisURI::create).toList());
	}

	@Test
	void fencingTokensComeFromACounterInEachLocksOwnSlotOnEveryNode() throws Exception {
		firstClient = clusterClient();
		try (Warden warden = Warden.create(firstClient)) {
			LockOwner owner = warden.newOwner();
			for (int i = 0; i < 30; i++) {
				// Names spread over the three masters.
				DistributedReentrantLock lock = warden.getLock("fenced-" + i);
				long first = lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS).orElseThrow();
				assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).hasValue(first);
				lock.unlock(owner);
				lock.unlock(owner);
				assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS).orElseThrow()).isGreaterThan(first);
				lock.unlock(owner);
			}
		}
	}

	@Test
	void locksOnEveryNodeAndSurvivesScriptFlush() {
		firstClient = clusterClient();
		try (Warden warden = Warden.create(firstClient)) {
			for (int i = 0; i < 30; i++) {
				DistributedReentrantLock lock = warden.getLock("cluster-lock-" + i);
				lock.lock();
				lock.lock();
				assertThat(lock.getHoldCount()).isEqualTo(2);
				lock.unlock();
				lock.unlock();
				assertThat(lock.isLocked()).isFalse();
			}
			for (RedisNode node : redis.cluster().nodes()) {
				node.call("SCRIPT", "FLUSH");
			}
			DistributedReentrantLock lock = warden.getLock("after-flush");
			lock.lock();
			lock.unlock();
			assertThat(lock.isLocked()).isFalse();
		}
	}

	@Test
	void twoClusterClientsExcludeEachOtherAndWakeWaiters() throws Exception {
		firstClient = clusterClient();
		secondClient = clusterClient();
		try (Warden first = Warden.create(firstClient); Warden second = Warden.create(secondClient)) {
			DistributedReentrantLock holder = first.getLock("cluster-shared");
			DistributedReentrantLock waiter = second.getLock("cluster-shared");
			holder.lock(60, TimeUnit.SECONDS);
			assertThat(threads.submit(() -> waiter.tryLock()).get()).isFalse();

			Future<Boolean> waiting = threads.submit(() -> waiter.tryLock(30, TimeUnit.SECONDS));
			awaitSubscribed(second);
			long released = System.nanoTime();
			holder.unlock();
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(2_000);
		}
	}

	@Test
	void autoConfigurationUsesTheApplicationsClusterSettings() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + redis.cluster().hostsAndPorts())
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				DistributedReentrantLock lock = warden.getLock("cluster-auto");
				lock.lock();
				assertThat(lock.isHeldByCurrentThread()).isTrue();
				lock.unlock();
				assertThat(lock.isLocked()).isFalse();
			});
	}

	private static void awaitSubscribed(Warden warden) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (warden.subscribedChannels() == 0) {
			assertThat(System.nanoTime()).as("waiter subscribed in time").isLessThan(deadline);
			TimeUnit.MILLISECONDS.sleep(5);
		}
	}

}
