package dev.warden.redis;

import java.time.Duration;

import dev.warden.Eventually;
import dev.warden.test.redis.RedisClusterExtension;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a Redis Cluster the connection of each master gets flush coalescing: commands sent at once
 * from many threads to keys on every master are each answered, in the order each thread sent
 * them, and so they are after every master's connection was killed and made again.
 */
class ClusterFlushCoalescingTests {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	private RedisClusterClient client;

	private RedisEngine engine;

	@BeforeEach
	void connect() {
		client = RedisClusterClient.create(redis.cluster().uris().stream().map(RedisURI::create).toList());
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
		for (RedisNode master : redis.cluster().nodes()) {
			// Warden's connection to that master (the pub/sub one is of another type and stays).
			assertThat((Long) master.call("CLIENT", "KILL", "TYPE", "normal")).isPositive();
		}
		// A command sent while Lettuce reconnects waits for the new connection.
		assertThat(engine.await(engine.commands().set(keyOnMaster(0, "after-kill"), "1"), "SET")).isEqualTo("OK");
		Eventually.await("flush coalescing on every master's new connection", Duration.ofSeconds(30),
				engine::coalescesFlushes);
		assertBurstsAnsweredInOrder("second");
	}

	/** Eight threads, two or three on each master, each sending 1,000 INCRs of its own key at once. */
	private void assertBurstsAnsweredInOrder(String prefix) throws Exception {
		CommandBursts.assertAnsweredInOrder(engine, 8, 1_000, thread -> keyOnMaster(thread % 3, prefix + "-" + thread));
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
