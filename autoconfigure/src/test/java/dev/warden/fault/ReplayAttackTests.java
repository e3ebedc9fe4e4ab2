package dev.warden.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.test.redis.RedisCluster;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a script's connection closes normally after Redis ran it, in the shapes a deployment meets:
 * several scripts pipelined on one connection, a script that a Redis Cluster redirected to a master
 * the client did not know served its slot, and a master's connection closing while other masters'
 * scripts are in flight on connections that share its event-loop thread. No script runs twice, and
 * no script on a connection that stayed open fails ({@link UnansweredScriptTests} has the simple
 * cases).
 */
class ReplayAttackTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private TcpProxy proxy;

	@BeforeEach
	void startAProxy() {
		proxy = TcpProxy.start(redis.node());
	}

	@AfterEach
	void close() {
		proxy.close();
	}

	/**
	 * Several scripts pipelined on one connection when it closes: each ran at most once, and one
	 * that succeeded ran exactly once. Each call takes a permit of its own semaphore.
	 */
	@Test
	void pipelinedScriptsRunAtMostOnce() throws Exception {
		Warden warden = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.connections(1).commandTimeout(Duration.ofSeconds(5)));
		int calls = 16;
		List<DistributedSemaphore> semaphores = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			DistributedSemaphore semaphore = warden.getSemaphore("pipelined-permits-" + i);
			assertThat(semaphore.trySetPermits(10)).isTrue();
			semaphores.add(semaphore);
		}
		assertThat(semaphores.get(0).tryAcquire()).isTrue();
		semaphores.get(0).release();
		ExecutorService pool = Executors.newFixedThreadPool(calls);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Boolean>> results = new ArrayList<>();
			for (DistributedSemaphore semaphore : semaphores) {
				results.add(pool.submit(() -> {
					start.await();
					return semaphore.tryAcquire();
				}));
			}
			proxy.dropNextReply("EVALSHA");
			start.countDown();
			for (int i = 0; i < calls; i++) {
				boolean ok;
				try {
					ok = results.get(i).get(30, TimeUnit.SECONDS);
				}
				catch (ExecutionException ex) {
					assertThat(ex.getCause()).isInstanceOf(RedisUnavailableException.class);
					ok = false;
				}
				long taken = 10 - Long.parseLong((String) redis.node().call("GET", "pipelined-permits-" + i));
				assertThat(taken).as("permits taken by call %d (succeeded: %s)", i, ok).isEqualTo(ok ? 1 : taken)
					.isLessThanOrEqualTo(1);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * On a Redis Cluster, a script that Lettuce sends to another master after a {@code MOVED} goes
	 * out on that master's connection; when that connection closes normally after Redis ran the
	 * script, the script must not run again. Master B owns no slot when the client starts; the slot
	 * of the semaphore then moves to it, so that the client learns of it by a {@code MOVED}. B
	 * announces the proxy's address, so that the client reaches it through the proxy.
	 */
	@Test
	void onAClusterAScriptRedirectedByMovedRunsOnce() throws Exception {
		try (ProxiedCluster cluster = ProxiedCluster.withSlotlessMasterBehind(proxy, "moved")) {
			RedisNode a = cluster.owner();
			RedisNode b = cluster.proxied();
			String bId = cluster.id(b);
			Warden onCluster = cluster.open(Duration.ofSeconds(5));
			DistributedSemaphore warm = onCluster.getSemaphore("moved-warm");
			assertThat(warm.trySetPermits(5)).isTrue();
			assertThat(warm.tryAcquire()).isTrue();

			String name = "moved-permits";
			String slot = Integer.toString(SlotHash.getSlot(name));
			b.call("CLUSTER", "SETSLOT", slot, "NODE", bId);
			a.call("CLUSTER", "SETSLOT", slot, "NODE", bId);
			Eventually.await("the slot moved", Duration.ofSeconds(30),
					() -> ((String) a.call("CLUSTER", "NODES")).lines()
						.anyMatch(line -> line.startsWith(bId) && line.contains(" " + slot)));

			DistributedSemaphore semaphore = onCluster.getSemaphore(name);
			assertThat(semaphore.trySetPermits(5)).as("set after the move").isTrue();
			assertThat(b.call("GET", name)).as("the semaphore is on B").isEqualTo("5");
			assertThat(semaphore.tryAcquire()).isTrue();
			semaphore.release();
			assertThat(proxy.openConnections()).as("the client reaches B through the proxy").isPositive();

			proxy.dropNextReply("EVALSHA");
			Object outcome;
			try {
				outcome = semaphore.tryAcquire();
			}
			catch (RedisUnavailableException ex) {
				outcome = ex;
			}
			assertThat(b.call("GET", name)).as("taken once (the call's outcome: %s)", outcome).isEqualTo("4");
		}
	}

	/**
	 * On a Redis Cluster, a master's connection closing fails only the scripts written to that
	 * connection: a script in flight on another master's healthy connection, which shares the
	 * closed connection's event-loop thread, runs and must be answered. With two event-loop
	 * threads and three masters, two masters' connections share a thread; each round spares one
	 * master and closes the connections of the others ({@code CLIENT KILL}) while one script per
	 * master waits in Redis ({@code CLIENT PAUSE WRITE}).
	 */
	@Test
	void onAClusterAHealthyMastersScriptIsNotFailed() throws Exception {
		ClientResources resources = DefaultClientResources.builder()
			.ioThreadPoolSize(2)
			.computationThreadPoolSize(2)
			.build();
		try (RedisCluster cluster = RedisCluster.start(3)) {
			RedisClusterClient client = RedisClusterClient.create(resources, cluster.uris().stream().map(RedisURI::create).toList());
			ExecutorService pool = Executors.newFixedThreadPool(3);
			try {
				Warden onCluster = Warden.builder(client).commandTimeout(Duration.ofSeconds(10)).build();
				try {
					List<DistributedSemaphore> semaphores = new ArrayList<>();
					List<String> names = new ArrayList<>();
					for (int master = 0; master < 3; master++) {
						for (int i = 0;; i++) {
							String name = "healthy-" + i;
							if (cluster.ownerOf(SlotHash.getSlot(name)) == master && !names.contains(name)) {
								names.add(name);
								DistributedSemaphore semaphore = onCluster.getSemaphore(name);
								assertThat(semaphore.trySetPermits(100)).isTrue();
								assertThat(semaphore.tryAcquire()).isTrue();
								semaphore.release();
								semaphores.add(semaphore);
								break;
							}
						}
					}
					List<String> failures = new ArrayList<>();
					for (int spared = 0; spared < 3; spared++) {
						for (RedisNode node : cluster.nodes()) {
							node.call("CLIENT", "PAUSE", "20000", "WRITE");
						}
						List<Future<Boolean>> results = new ArrayList<>();
						for (DistributedSemaphore semaphore : semaphores) {
							results.add(pool.submit(() -> semaphore.tryAcquire()));
						}
						for (RedisNode node : cluster.nodes()) {
							Eventually.await("a script waits on " + node, Duration.ofSeconds(10),
									() -> ((String) node.call("CLIENT", "LIST")).lines()
										.anyMatch(line -> line.contains(" flags=b ") && line.contains(" cmd=evalsha")));
						}
						for (int master = 0; master < 3; master++) {
							if (master != spared) {
								cluster.nodes().get(master).call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
							}
						}
						for (RedisNode node : cluster.nodes()) {
							node.call("CLIENT", "UNPAUSE");
						}
						try {
							assertThat(results.get(spared).get(30, TimeUnit.SECONDS)).isTrue();
						}
						catch (ExecutionException ex) {
							failures.add("master " + spared + " (connection never closed): " + ex.getCause());
						}
						for (int master = 0; master < 3; master++) {
							try {
								results.get(master).get(30, TimeUnit.SECONDS);
							}
							catch (ExecutionException ex) {
								// The killed masters' scripts may fail.
							}
						}
					}
					assertThat(failures).as("scripts failed on connections that never closed").isEmpty();
				}
				finally {
					onCluster.close();
				}
			}
			finally {
				pool.shutdownNow();
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
				resources.shutdown();
			}
		}
	}

}
