package dev.warden;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisCluster;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisSentinel;
import dev.warden.test.redis.RedisServers;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servers Warden is tested against ({@link RedisServers}: the bundled 6.2 and Debian's 7.0),
 * each running the lock family, Redisson's view of a Warden lock, the delayed queue, and a Sentinel
 * and a Cluster smoke test. The rest of the suite runs on the harness's own server.
 */
class ServerMatrixTests {

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	static Stream<RedisServers.Server> servers() {
		return RedisServers.all().stream();
	}

	private static void assertVersion(RedisNode node, RedisServers.Server server) {
		assertThat((String) node.call("INFO", "server")).contains("redis_version:" + server.version());
	}

	@ParameterizedTest
	@MethodSource("servers")
	void theLockFamilyAndRedissonsViewOfIt(RedisServers.Server server) throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().server(server.executable()).name("matrix"))) {
			assertVersion(node, server);
			Warden warden = clients.open(node);
			LockOwner owner = warden.newOwner();
			for (DistributedReentrantLock lock : new DistributedReentrantLock[] { warden.getLock("m-lock"),
					warden.getFairLock("m-fair"), warden.getReadWriteLock("m-rw").writeLock(),
					warden.getReadWriteLock("m-rw2").readLock() }) {
				assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).as(lock.getName()).isTrue();
				assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).as(lock.getName() + " re-entered")
					.isPresent();
				lock.unlock(owner);
				lock.unlock(owner);
				assertThat(lock.isLocked()).isFalse();
			}
			assertThat(warden.getSimpleLock("m-simple").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			warden.getSimpleLock("m-simple").unlock(owner);
			assertThat(warden.getSemaphore("m-sem").trySetPermits(1)).isTrue();
			assertThat(warden.getSemaphore("m-sem").tryAcquire()).isTrue();
			assertThat(warden.getSemaphore("m-sem").tryAcquire()).isFalse();
			assertThat(warden.getPermitExpirableSemaphore("m-permits").trySetPermits(1)).isTrue();
			Optional<String> permit = warden.getPermitExpirableSemaphore("m-permits").tryAcquire(0, 10, TimeUnit.SECONDS);
			warden.getPermitExpirableSemaphore("m-permits").release(permit.orElseThrow());
			assertThat(warden.getCountDownLatch("m-latch").trySetCount(1)).isTrue();
			warden.getCountDownLatch("m-latch").countDown();
			assertThat(warden.getCountDownLatch("m-latch").await(1, TimeUnit.SECONDS)).isTrue();

			Config config = new Config();
			config.useSingleServer().setAddress(node.uri()).setConnectionMinimumIdleSize(1);
			RedissonClient redisson = Redisson.create(config);
			try {
				DistributedReentrantLock ours = warden.getLock("m-shared");
				assertThat(ours.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				RLock theirs = redisson.getLock("m-shared");
				assertThat(theirs.tryLock(0, TimeUnit.SECONDS)).as("Redisson sees Warden's hold").isFalse();
				ours.unlock(owner);
				assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
				theirs.unlock();
			}
			finally {
				redisson.shutdown();
			}
		}
	}

	@ParameterizedTest
	@MethodSource("servers")
	void theDelayedQueue(RedisServers.Server server) throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().server(server.executable()).name("matrix-tasks"))) {
			Warden warden = clients.open(node);
			DelayedQueue<String> queue = warden.getDelayedQueue("m-queue", String.class);
			Set<String> ran = ConcurrentHashMap.newKeySet();
			queue.consume(delivery -> {
				if (delivery.id().equals("fails")) {
					throw new IllegalStateException("as planned");
				}
				ran.add(delivery.id() + "=" + delivery.payload());
			}, dev.warden.task.ConsumerOptions.DEFAULTS.withMaxAttempts(1));
			queue.schedule("t-1", "a", Duration.ofMillis(10));
			queue.schedule("t-2", "b", Duration.ofMillis(200));
			queue.schedule("fails", "c", Duration.ZERO);
			queue.schedule("cancelled", "d", Duration.ofHours(1));
			assertThat(queue.cancel("cancelled")).isTrue();
			Eventually.await("the tasks ran", Duration.ofSeconds(30),
					() -> ran.size() == 2 && queue.deadLetterCount() == 1);
			assertThat(ran).containsExactlyInAnyOrder("t-1=a", "t-2=b");
			assertThat(queue.size()).isZero();
		}
	}

	@ParameterizedTest
	@MethodSource("servers")
	void aCluster(RedisServers.Server server) throws Exception {
		try (RedisCluster cluster = RedisCluster.start(3, 0, server.executable())) {
			assertVersion(cluster.nodes().get(0), server);
			Warden warden = clients.open(cluster);
			LockOwner owner = warden.newOwner();
			for (int i = 0; i < 10; i++) {
				DistributedReentrantLock lock = warden.getLock("c-lock-" + i);
				assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				lock.unlock(owner);
			}
			DelayedQueue<String> queue = warden.getDelayedQueue("c-queue", String.class);
			Set<String> ran = ConcurrentHashMap.newKeySet();
			queue.consume(delivery -> ran.add(delivery.id()));
			queue.schedule("t-1", "x", Duration.ofMillis(10));
			Eventually.await("the task ran", Duration.ofSeconds(30), () -> ran.contains("t-1"));
		}
	}

	@ParameterizedTest
	@MethodSource("servers")
	void sentinels(RedisServers.Server server) throws Exception {
		try (RedisSentinel sentinel = RedisSentinel.start(server.executable())) {
			assertVersion(sentinel.master(), server);
			RedisURI.Builder uri = RedisURI.Builder.sentinel(sentinel.sentinels().get(0).host(),
					sentinel.sentinels().get(0).port(), RedisSentinel.MASTER_NAME);
			Warden warden = clients.open(clients.redisClient(uri));
			LockOwner owner = warden.newOwner();
			DistributedReentrantLock lock = warden.getLock("s-lock");
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			assertThat(sentinel.master().call("EXISTS", "s-lock")).isEqualTo(1L);
			lock.unlock(owner);
			DelayedQueue<String> queue = warden.getDelayedQueue("s-queue", String.class);
			Set<String> ran = ConcurrentHashMap.newKeySet();
			queue.consume(delivery -> ran.add(delivery.id()));
			queue.schedule("t-1", "x", Duration.ofMillis(10));
			Eventually.await("the task ran", Duration.ofSeconds(30), () -> ran.contains("t-1"));
		}
	}

}
