package dev.warden.lock;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class MultiLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void allOrNothingInNameOrder() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedMultiLock multi = warden.getMultiLock(warden.getLock("m-c"), warden.getLock("m-a"),
				warden.getFairLock("m-b"));
		assertThat(multi.getLocks()).extracting(DistributedMutex::getName).containsExactly("m-a", "m-b", "m-c");

		DistributedReentrantLock blocker = clients.open(redis.node()).getLock("m-c");
		blocker.lock();
		assertThat(multi.tryLock(200, 10_000, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(redis.node().call("EXISTS", "m-a")).isEqualTo(0L);
		assertThat(redis.node().call("EXISTS", "m-b")).isEqualTo(0L);
		blocker.unlock();

		LockOwner owner = warden.newOwner();
		Map<String, Long> tokens = multi.tryLockWithTokens(owner, 1, TimeUnit.SECONDS);
		assertThat(tokens).containsOnlyKeys("m-a", "m-b", "m-c");
		assertThat(threads.submit(() -> clients.open(redis.node()).getLock("m-a").tryLock()).get()).isFalse();
		multi.unlock(owner);
		assertThat(redis.node().call("EXISTS", "m-a", "m-b", "m-c")).isEqualTo(0L);

		assertThat(multi.tryLock()).isTrue();
		multi.unlock();
	}

	@Test
	void invalidMultiLocksFailFast() {
		Warden warden = clients.open(redis.node());
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getMultiLock());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> warden.getMultiLock(warden.getLock("same"), warden.getLock("same")));
		DistributedMultiLock multi = warden.getMultiLock(warden.getLock("x"));
		assertThatIllegalArgumentException().isThrownBy(() -> multi.tryLock(0, -1, TimeUnit.SECONDS));
	}

}
