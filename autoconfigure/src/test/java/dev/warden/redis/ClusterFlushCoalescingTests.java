package dev.warden.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.test.redis.RedisCluster;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a Redis Cluster the connection of each master gets flush coalescing: commands sent at once
 * from many threads to keys on every master are each answered, in the order each thread sent
 * them, and so they are after every master's connection was killed and made again.
 */
class ClusterFlushCoalescingTests {

	private static RedisCluster cluster;

	private RedisClusterClient client;

	private RedisEngine engine;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@BeforeEach
	void connect() {
		client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
		engine = RedisEngine.connect(client, "cluster-flush-test", Duration.ofSeconds(10));
	}

	@AfterEach
	void close() {
		engine.close();
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void everyMastersConnectionCoalescesAndAnswersBurstsInOrder() throws Exception {
		Eventually.await("flush coalescing on every master's connection", Duration.ofSeconds(30),
				engine::coalescesFlushes);
		assertBurstsAnsweredInOrder("first");
	}

	@Test
	void theConnectionsMadeAfterAKillCoalesceToo() throws Exception {
		Eventually.await("flush coalescing on every master's connection", Duration.ofSeconds(30),
				engine::coalescesFlushes);
		for (RedisNode master : cluster.nodes()) {
			// Warden's connection to that master (the pub/sub one is of another type and stays).
			assertThat((Long) master.call("CLIENT", "KILL", "TYPE", "normal")).isPositive();
		}
		// A command sent while Lettuce reconnects waits for the new connection.
		assertThat(engine.await(engine.commands().set(keyOnMaster(0, "after-kill"), "1"), "SET")).isEqualTo("OK");
		Eventually.await("flush coalescing on every master's new connection", Duration.ofSeconds(30),
				engine::coalescesFlushes);
		assertBurstsAnsweredInOrder("second");
	}

	/** Eight threads, two on each master and more, each sending 1,000 INCRs of its own key at once. */
	private void assertBurstsAnsweredInOrder(String prefix) throws Exception {
		int threads = 8;
		int perThread = 1_000;
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<List<Long>>> sent = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				String key = keyOnMaster(thread % 3, prefix + "-" + thread);
				sent.add(pool.submit(() -> {
					start.await();
					List<CompletableFuture<Long>> replies = new ArrayList<>();
					for (int i = 0; i < perThread; i++) {
						replies.add(engine.commands().incr(key).toCompletableFuture());
					}
					List<Long> values = new ArrayList<>();
					for (CompletableFuture<Long> reply : replies) {
						values.add(reply.get(30, TimeUnit.SECONDS));
					}
					return values;
				}));
			}
			start.countDown();
			for (Future<List<Long>> thread : sent) {
				List<Long> values = thread.get(60, TimeUnit.SECONDS);
				for (int i = 0; i < perThread; i++) {
					assertThat(values.get(i)).isEqualTo(i + 1L);
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/** A key whose slot is served by master {@code master} (the harness splits the slots evenly). */
	private static String keyOnMaster(int master, String prefix) {
		for (int i = 0; i < 100_000; i++) {
			String key = prefix + ":" + i;
			if (SlotHash.getSlot(key) * 3 / SlotHash.SLOT_COUNT == master) {
				return key;
			}
		}
		throw new IllegalStateException("No key on master " + master);
	}

}
