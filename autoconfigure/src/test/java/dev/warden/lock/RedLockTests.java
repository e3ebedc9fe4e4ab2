package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** RedLock on five real, independent Redis nodes. */
class RedLockTests {

	private static final List<RedisNode> nodes = new ArrayList<>();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@BeforeAll
	static void startNodes() {
		for (int i = 0; i < 5; i++) {
			nodes.add(RedisNode.start(RedisNode.config().name("redlock-" + i)));
		}
	}

	@AfterAll
	static void stopNodes() {
		nodes.forEach(RedisNode::stop);
	}

	@BeforeEach
	void allNodesUp() {
		for (RedisNode node : nodes) {
			if (!node.isRunning()) {
				node.restart();
			}
			node.call("FLUSHALL");
		}
	}

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	private Warden redLockClient() {
		List<RedisClient> nodeClients = nodes.stream().map(clients::redisClient).toList();
		return clients.open(nodes.get(0), options -> options.redLockNodes(nodeClients, Duration.ofMillis(150)));
	}

	@Test
	void acquiresWithTwoOfFiveNodesDownAndFailsWithThree() throws Exception {
		Warden warden = redLockClient();
		DistributedRedLock lock = warden.getRedLock("red");
		assertThat(lock.quorum()).isEqualTo(3);

		nodes.get(0).stop();
		nodes.get(3).stop();
		LockOwner owner = warden.newOwner();
		assertThat(lock.tryLock(owner, 0, 10, TimeUnit.SECONDS)).isTrue();
		long holding = nodes.stream().filter(RedisNode::isRunning).filter(node -> Long.valueOf(1).equals(node.call("EXISTS", "red"))).count();
		assertThat(holding).isEqualTo(3);
		lock.unlock(owner);

		nodes.get(4).stop();
		assertThat(lock.tryLock(owner, 300, 10_000, TimeUnit.MILLISECONDS)).isFalse();
		for (RedisNode node : nodes) {
			if (node.isRunning()) {
				assertThat(node.call("EXISTS", "red")).as("rolled back on %s", node).isEqualTo(0L);
			}
		}
	}

	@Test
	void neverTwoHoldersAcrossClientsWhileNodesGoDown() throws Exception {
		List<Warden> contenders = List.of(redLockClient(), redLockClient());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger acquisitions = new AtomicInteger();
		nodes.get(1).stop();
		List<Future<?>> workers = new ArrayList<>();
		for (Warden warden : contenders) {
			for (int t = 0; t < 2; t++) {
				workers.add(threads.submit(() -> {
					DistributedRedLock lock = warden.getRedLock("contended-red");
					LockOwner owner = warden.newOwner();
					for (int i = 0; i < 8; i++) {
						if (lock.tryLock(owner, 5, 10, TimeUnit.SECONDS)) {
							acquisitions.incrementAndGet();
							if (inside.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							inside.decrementAndGet();
							lock.unlock(owner);
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(2, TimeUnit.MINUTES);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(acquisitions.get()).isPositive();
	}

	@Test
	void autoConfigurationConnectsTheConfiguredNodes() {
		String uris = String.join(",", nodes.stream().map(RedisNode::uri).toList());
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + nodes.get(0).port(), "warden.redlock.nodes=" + uris,
					"warden.redlock.node-timeout=100ms")
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				DistributedRedLock lock = warden.getRedLock("configured-red");
				LockOwner owner = warden.newOwner();
				assertThat(lock.tryLock(owner, 0, 5, TimeUnit.SECONDS)).isTrue();
				assertThat(nodes).allSatisfy(node -> assertThat(node.call("EXISTS", "configured-red")).isEqualTo(1L));
				lock.unlock(owner);
			});
	}

	@Test
	void fewerThanThreeNodesIsAClearError() {
		List<RedisClient> two = List.of(clients.redisClient(nodes.get(0)), clients.redisClient(nodes.get(1)));
		Warden warden = clients.open(nodes.get(0), options -> options.redLockNodes(two, Duration.ofMillis(100)));
		assertThatIllegalStateException().isThrownBy(() -> warden.getRedLock("too-few"))
			.withMessageContaining("at least 3");
		assertThatIllegalStateException().isThrownBy(() -> clients.open(nodes.get(0)).getRedLock("none"))
			.withMessageContaining("0 configured");
	}

}
