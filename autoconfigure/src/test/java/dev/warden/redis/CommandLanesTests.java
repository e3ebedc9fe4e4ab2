package dev.warden.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * An engine with several command connections: a script goes out on the lane of its first key's
 * hash tag, so the scripts on one name keep the order they were sent in, and names spread over
 * every lane.
 */
class CommandLanesTests {

	private static final LuaScript APPEND = LuaScript.load(CommandLanesTests.class, "lanes-append.lua");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void eachLaneIsAConnectionOfItsOwnAndClosesWithTheEngine() throws Exception {
		Set<String> before = clientIds();
		RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "lanes-test", Duration.ofSeconds(10),
				KeyNamespace.WARDEN, 3);
		Set<String> opened;
		try {
			assertThat(engine.lanes()).isEqualTo(3);
			assertThat(engine.ping()).isNotNegative();
			opened = clientIds();
			opened.removeAll(before);
			assertThat(opened).as("three command connections and the pub/sub one").hasSize(4);
			assertThat(engine.connected()).isTrue();
			assertThat(engine.coalescesFlushes()).as("every lane coalesces flushes").isTrue();
		}
		finally {
			engine.close();
		}
		Eventually.await("the engine's connections closed", () -> Collections.disjoint(clientIds(), opened));
	}

	@Test
	void scriptsOnOneNameKeepTheirOrderAndNamesSpreadOverEveryLane() throws Exception {
		RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "lanes-test", Duration.ofSeconds(10),
				KeyNamespace.WARDEN, 3);
		try {
			int names = 12;
			int perName = 400;
			Set<RedisEngine> used = new HashSet<>();
			IntStream.range(0, names).forEach(name -> used.add(engine.laneOf("lanes:{order-" + name + "}:list")));
			assertThat(used).as("twelve names over the three lanes").hasSize(3);

			// Loaded first: a burst that meets NOSCRIPT is sent again by text, as its replies come.
			redis.node().call("SCRIPT", "LOAD", APPEND.source());
			CountDownLatch start = new CountDownLatch(1);
			ExecutorService pool = Executors.newFixedThreadPool(names);
			try {
				List<Future<?>> sent = new ArrayList<>();
				for (int name = 0; name < names; name++) {
					String[] key = { "lanes:{order-" + name + "}:list" };
					sent.add(pool.submit(() -> {
						start.await();
						List<CompletableFuture<Long>> replies = new ArrayList<>();
						for (int i = 0; i < perName; i++) {
							replies.add(engine.eval(APPEND, ScriptOutputType.INTEGER, key, Integer.toString(i)));
						}
						for (int i = 0; i < perName; i++) {
							assertThat(replies.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i + 1L);
						}
						return null;
					}));
				}
				start.countDown();
				for (Future<?> name : sent) {
					name.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				pool.shutdownNow();
			}
			for (int name = 0; name < names; name++) {
				List<?> appended = (List<?>) redis.node().call("LRANGE", "lanes:{order-" + name + "}:list", "0", "-1");
				assertThat(appended).as("name %d, in the order sent", name)
					.isEqualTo(IntStream.range(0, perName).mapToObj(Integer::toString).toList());
			}
			// Each lane ran scripts, as the server sees its connections.
			String clientList = (String) redis.node().call("CLIENT", "LIST");
			long scripting = clientList.lines().filter(line -> line.contains(" cmd=evalsha")).count();
			assertThat(scripting).as("connections whose last command was a script:\n" + clientList).isGreaterThanOrEqualTo(3);
		}
		finally {
			engine.close();
		}
	}

	@Test
	void aKeyAndItsHashTagSiblingsShareALane() throws Exception {
		RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "lanes-test", Duration.ofSeconds(10),
				KeyNamespace.WARDEN, 4);
		try {
			for (int i = 0; i < 20; i++) {
				String queue = "q-" + i;
				RedisEngine lane = engine.laneOf("warden:task:{" + queue + "}:due");
				assertThat(engine.laneOf("warden:task:{" + queue + "}:dead")).isSameAs(lane);
				assertThat(engine.laneOf("{" + queue + "}")).isSameAs(lane);
				assertThat(engine.laneOf(queue)).as("a key without a tag is its own tag").isSameAs(lane);
			}
		}
		finally {
			engine.close();
		}
	}

	@Test
	void aNumberOfConnectionsOutsideItsRangeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisEngine.connect(clients.redisClient(redis.node()),
				"lanes-test", Duration.ofSeconds(10), KeyNamespace.WARDEN, 0)).withMessageContaining("from 1 to 16");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisEngine.connect(clients.redisClient(redis.node()),
				"lanes-test", Duration.ofSeconds(10), KeyNamespace.WARDEN, 17)).withMessageContaining("not 17");
	}

	/** The ids of the clients connected to the server, but the one asking. */
	private static Set<String> clientIds() {
		String clientList = (String) redis.node().call("CLIENT", "LIST");
		Set<String> ids = new HashSet<>();
		clientList.lines()
			.filter(line -> !line.contains(" cmd=client|list") && !line.contains(" cmd=client "))
			.forEach(line -> ids.add(line.substring(0, line.indexOf(' '))));
		return ids;
	}

}
