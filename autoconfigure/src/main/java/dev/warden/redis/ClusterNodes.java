package dev.warden.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.warden.RedisUnavailableException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The masters of a Redis Cluster, each with an engine of its own ({@link RedisEngine#node}) whose
 * commands go out on the connection Lettuce sends that master's slot writes on
 * ({@code getConnectionAsync(host, port)}): a {@code WAIT} sent there right behind a write covers
 * it, blocks only that master's connection, and counts that master's replicas. Which master serves
 * a key is the cluster connection's view ({@code Partitions}); when a node answers as a former
 * master would, that view is read again ({@link RedisClusterClient#refreshPartitionsAsync()}), at
 * most once a second.
 */
final class ClusterNodes {

	private static final Logger logger = LoggerFactory.getLogger(ClusterNodes.class);

	/** The least time between two topology reads asked for by Warden. */
	private static final long REFRESH_SPACING_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final RedisEngine engine;

	private final RedisClusterClient client;

	private final StatefulRedisClusterConnection<String, String> connection;

	/** The engines of the nodes written to, by {@code host:port}. */
	private final Map<String, RedisEngine> nodes = new ConcurrentHashMap<>();

	private final AtomicBoolean refreshing = new AtomicBoolean();

	private final AtomicLong lastRefreshNanos = new AtomicLong(System.nanoTime() - REFRESH_SPACING_NANOS);

	ClusterNodes(RedisEngine engine, RedisClusterClient client, StatefulRedisClusterConnection<String, String> connection) {
		this.engine = engine;
		this.client = client;
		this.connection = connection;
	}

	/** {@code host:port} of the master that serves {@code key}; {@code null} when none does. */
	@Nullable String addressOf(String key) {
		RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
		return (master != null) ? address(master.getUri()) : null;
	}

	/** {@code host:port} of the masters that serve slots. */
	List<String> masters() {
		List<String> masters = new ArrayList<>();
		for (RedisClusterNode node : connection.getPartitions()) {
			if (!node.hasNoSlots()) {
				masters.add(address(node.getUri()));
			}
		}
		return masters;
	}

	/** The engine of the master that serves {@code key}. */
	CompletableFuture<RedisEngine> ofKey(String key) {
		String address = addressOf(key);
		if (address == null) {
			refreshTopology();
			return CompletableFuture.failedFuture(new RedisUnavailableException(
					"No Redis Cluster master serves the slot of '" + key + "' in this client's view of the cluster"));
		}
		return at(address);
	}

	/** The engine of the node at {@code address}, once its connection is open. */
	CompletableFuture<RedisEngine> at(String address) {
		int colon = address.lastIndexOf(':');
		CompletableFuture<StatefulRedisConnection<String, String>> opened;
		try {
			opened = connection.getConnectionAsync(address.substring(0, colon),
					Integer.parseInt(address.substring(colon + 1)));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (opened.isDone() && !opened.isCompletedExceptionally()) {
			return CompletableFuture.completedFuture(engineOf(address, opened.join()));
		}
		return opened.thenApply(node -> engineOf(address, node));
	}

	private RedisEngine engineOf(String address, StatefulRedisConnection<String, String> node) {
		RedisEngine known = nodes.get(address);
		if (known != null && known.commandConnectionIs(node)) {
			return known;
		}
		// A first write to this node, or Lettuce opened another connection to it (the former was closed).
		return nodes.compute(address,
				(key, current) -> (current != null && current.commandConnectionIs(node)) ? current
						: new RedisEngine(engine, node, address));
	}

	/** Reads the cluster's topology again, unless that was asked less than a second ago or is under way. */
	void refreshTopology() {
		long now = System.nanoTime();
		long last = lastRefreshNanos.get();
		if (now - last < REFRESH_SPACING_NANOS || !refreshing.compareAndSet(false, true)) {
			return;
		}
		lastRefreshNanos.set(now);
		try {
			// Asked for on Lettuce's threads (a reply): started on the engine's own.
			engine.scheduler().execute(this::readTopology);
		}
		catch (RuntimeException ex) {
			// The engine is closing.
			refreshing.set(false);
		}
	}

	private void readTopology() {
		CompletableFuture<Void> refreshed;
		try {
			refreshed = client.refreshPartitionsAsync().toCompletableFuture();
		}
		catch (RuntimeException ex) {
			refreshed = CompletableFuture.failedFuture(ex);
		}
		refreshed.whenComplete((ignored, failure) -> {
			refreshing.set(false);
			if (failure != null) {
				logger.debug("Could not read the Redis Cluster topology again", failure);
			}
			else {
				logger.debug("Read the Redis Cluster topology again: a node answered as a former master");
			}
		});
	}

	private static String address(RedisURI uri) {
		return uri.getHost() + ":" + uri.getPort();
	}

}
