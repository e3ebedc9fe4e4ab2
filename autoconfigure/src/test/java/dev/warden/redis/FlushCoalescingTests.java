package dev.warden.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Commands sent at once on the command connection share socket writes: each still gets its own
 * reply, in the order each thread sent them, and so does every connection after a reconnect.
 */
class FlushCoalescingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private RedisEngine engine;

	@BeforeEach
	void connect() {
		engine = RedisEngine.connect(clients.redisClient(redis.node()), "flush-test", Duration.ofSeconds(10));
	}

	@AfterEach
	void close() {
		engine.close();
	}

	@Test
	void burstsFromManyThreadsAreAnsweredInOrder() throws Exception {
		assertThat(engine.coalescesFlushes()).isTrue();
		CommandBursts.assertAnsweredInOrder(engine, 8, 2_000, thread -> "flush:" + thread);
	}

	@Test
	void theChannelAfterAReconnectCoalescesToo() throws Exception {
		assertThat(engine.await(engine.commands().set("before", "1"), "SET")).isEqualTo("OK");
		long killed = engine.await(engine.commands().clientId(), "CLIENT ID");
		redis.node().call("CLIENT", "KILL", "ID", Long.toString(killed));

		// A command sent while Lettuce reconnects waits for the new connection: its id is another.
		Eventually.await("a reconnected command connection", Duration.ofSeconds(30),
				() -> engine.await(engine.commands().clientId(), "CLIENT ID") != killed);
		assertThat(engine.coalescesFlushes()).isTrue();
		assertThat(engine.await(engine.commands().get("before"), "GET")).isEqualTo("1");
		List<CompletableFuture<Long>> replies = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			replies.add(engine.commands().incr("after").toCompletableFuture());
		}
		assertThat(replies.get(499).get(30, TimeUnit.SECONDS)).isEqualTo(500L);
	}

}
