package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One test per row of {@code docs/migrating-from-redisson.md}: during a rolling migration, the
 * Redisson side (old instances) and the Warden side (new ones) use the same names on one Redis.
 * Where the row says they interoperate, each side excludes the other and sees the other's
 * releases; where it says they do not, the test shows what an operator must know.
 */
class RedissonMigrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final RedissonExtension redisson = new RedissonExtension(redis);

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** Redisson ties a lock to its thread: every Redisson call runs on this one. */
	private final ExecutorService redissonThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopThread() {
		redissonThread.shutdownNow();
	}

	@Test
	void rLockAndGetLockExcludeEachOther() throws Exception {
		RLock theirs = redisson.client().getLock("migrating-lock");
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();

		onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS));
		assertThat(warden.getLock("migrating-lock").tryLock(owner, 0, TimeUnit.SECONDS)).isFalse();
		onRedissonThread(() -> {
			theirs.unlock();
			return null;
		});
		assertThat(warden.getLock("migrating-lock").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isFalse();
		warden.getLock("migrating-lock").unlock(owner);
	}

	@Test
	void rFairLockAndGetFairLockExcludeEachOther() throws Exception {
		RLock theirs = redisson.client().getFairLock("migrating-fair");
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();

		assertThat(warden.getFairLock("migrating-fair").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isFalse();
		warden.getFairLock("migrating-fair").unlock(owner);
		assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isTrue();
		assertThat(warden.getFairLock("migrating-fair").tryLock(owner, 0, TimeUnit.SECONDS)).isFalse();
		onRedissonThread(() -> {
			theirs.unlock();
			return null;
		});
	}

	@Test
	void rReadWriteLockAndGetReadWriteLockExcludeEachOther() throws Exception {
		RReadWriteLock theirs = redisson.client().getReadWriteLock("migrating-rw");
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();

		onRedissonThread(() -> theirs.writeLock().tryLock(0, 30, TimeUnit.SECONDS));
		assertThat(warden.getReadWriteLock("migrating-rw").readLock().tryLock(owner, 0, TimeUnit.SECONDS)).isFalse();
		onRedissonThread(() -> {
			theirs.writeLock().unlock();
			return null;
		});
		assertThat(warden.getReadWriteLock("migrating-rw").readLock().tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(onRedissonThread(() -> theirs.readLock().tryLock(0, 30, TimeUnit.SECONDS))).as("readers share")
			.isTrue();
		assertThat(onRedissonThread(() -> theirs.writeLock().tryLock(0, 30, TimeUnit.SECONDS))).isFalse();
	}

	@Test
	void rSemaphoreAndGetSemaphoreShareTheirPermits() throws Exception {
		RSemaphore theirs = redisson.client().getSemaphore("migrating-sem");
		Warden warden = clients.open(redis.node());

		assertThat(theirs.trySetPermits(1)).isTrue();
		assertThat(warden.getSemaphore("migrating-sem").tryAcquire()).isTrue();
		assertThat(theirs.tryAcquire()).isFalse();
		warden.getSemaphore("migrating-sem").release();
		assertThat(theirs.tryAcquire()).isTrue();
		assertThat(warden.getSemaphore("migrating-sem").availablePermits()).isZero();
	}

	@Test
	void rCountDownLatchAndGetCountDownLatchCountTogether() throws Exception {
		RCountDownLatch theirs = redisson.client().getCountDownLatch("migrating-latch");
		Warden warden = clients.open(redis.node());

		assertThat(theirs.trySetCount(2)).isTrue();
		warden.getCountDownLatch("migrating-latch").countDown();
		assertThat(theirs.getCount()).isEqualTo(1);
		Future<Boolean> waiting = Executors.newSingleThreadExecutor()
			.submit(() -> warden.getCountDownLatch("migrating-latch").await(10, TimeUnit.SECONDS));
		theirs.countDown();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void redissonMultiLockAndGetMultiLockExcludeEachOther() throws Exception {
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();
		RedissonMultiLock theirs = new RedissonMultiLock(redisson.client().getLock("migrating-a"),
				redisson.client().getLock("migrating-b"));

		assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isTrue();
		assertThat(warden.getMultiLock(warden.getLock("migrating-b"), warden.getLock("migrating-c"))
			.tryLock(owner, 0, TimeUnit.SECONDS)).as("one lock in common").isFalse();
		assertThat(warden.getLock("migrating-c").isLocked()).as("rolled back").isFalse();
		onRedissonThread(() -> {
			theirs.unlock();
			return null;
		});
		assertThat(warden.getMultiLock(warden.getLock("migrating-a"), warden.getLock("migrating-b"))
			.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void redissonRedLockAndGetRedLockExcludeEachOther() throws Exception {
		List<RedisNode> nodes = new ArrayList<>();
		List<RedissonClient> redissons = new ArrayList<>();
		try {
			List<RedisClient> nodeClients = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				RedisNode node = RedisNode.start(RedisNode.config().name("migrating-redlock-" + i));
				nodes.add(node);
				nodeClients.add(clients.redisClient(node));
				Config config = new Config();
				config.useSingleServer().setAddress(node.uri()).setConnectionMinimumIdleSize(1);
				redissons.add(Redisson.create(config));
			}
			Warden warden = clients.open(nodes.get(0), options -> options.redLockNodes(nodeClients, Duration.ofMillis(200)));
			LockOwner owner = warden.newOwner();
			RedissonRedLock theirs = new RedissonRedLock(redissons.stream()
				.map(client -> client.getLock("migrating-redlock"))
				.toArray(RLock[]::new));

			assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isTrue();
			assertThat(warden.getRedLock("migrating-redlock").tryLock(owner, 0, 30, TimeUnit.SECONDS)).isFalse();
			onRedissonThread(() -> {
				theirs.unlock();
				return null;
			});
			assertThat(warden.getRedLock("migrating-redlock").tryLock(owner, 0, 30, TimeUnit.SECONDS)).isTrue();
			assertThat(onRedissonThread(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS))).isFalse();
		}
		finally {
			redissons.forEach(RedissonClient::shutdown);
			nodes.forEach(RedisNode::close);
		}
	}

	@Test
	void rPermitExpirableSemaphoreAndGetPermitExpirableSemaphoreMustNotShareAName() throws Exception {
		RPermitExpirableSemaphore theirs = redisson.client().getPermitExpirableSemaphore("migrating-permits");
		DistributedPermitExpirableSemaphore ours = clients.open(redis.node())
			.getPermitExpirableSemaphore("migrating-permits");

		assertThat(theirs.trySetPermits(1)).isTrue();
		Optional<String> permit = ours.tryAcquire(0, 30, TimeUnit.SECONDS);
		assertThat(permit).isPresent();
		// The layouts differ: on one name, the two sides together hand out more permits than were set.
		// Hence the guide's rule: a new name on the Warden side, the old one drained on Redisson's.
		assertThat(theirs.tryAcquire(0, 30, TimeUnit.SECONDS)).as("a second permit of a semaphore of one").isNotNull();
	}

	private <T> T onRedissonThread(Callable<T> call) throws Exception {
		return redissonThread.submit(call).get(30, TimeUnit.SECONDS);
	}

}
