package dev.warden.test.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of real {@code redis-server} processes: masters only, the 16384 hash slots split
 * evenly between them, started and joined before {@link #start(int)} returns.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3)) {
 *     RedisClusterClient client = RedisClusterClient.create(cluster.uris());
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private final List<RedisNode> nodes;

	private RedisCluster(List<RedisNode> nodes) {
		this.nodes = List.copyOf(nodes);
	}

	/**
	 * Starts {@code masters} nodes in cluster mode, gives each an equal range of slots, joins them
	 * and waits until every node reports the cluster healthy.
	 */
	public static RedisCluster start(int masters) {
		if (masters < 1) {
			throw new IllegalArgumentException("A cluster needs at least one master");
		}
		List<RedisNode> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters; i++) {
				nodes.add(RedisNode.start(RedisNode.config()
					.name("cluster-" + i)
					.option("cluster-enabled", "yes")
					.option("cluster-config-file", "nodes.conf")
					.option("cluster-node-timeout", "5000")));
			}
			for (int i = 0; i < masters; i++) {
				int from = SLOTS * i / masters;
				int to = SLOTS * (i + 1) / masters;
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = from; slot < to; slot++) {
					command.add(Integer.toString(slot));
				}
				nodes.get(i).call(command.toArray(String[]::new));
			}
			for (int i = 1; i < masters; i++) {
				nodes.get(0).call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.awaitHealthy();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisNode::stop);
			throw ex;
		}
	}

	/** The cluster's nodes. */
	public List<RedisNode> nodes() {
		return nodes;
	}

	/** The {@code redis://} URIs of every node. */
	public List<String> uris() {
		return nodes.stream().map(RedisNode::uri).toList();
	}

	/** {@code host:port} of every node, as {@code spring.data.redis.cluster.nodes} takes them. */
	public String hostsAndPorts() {
		return String.join(",", nodes.stream().map(node -> node.host() + ":" + node.port()).toList());
	}

	@Override
	public void close() {
		nodes.forEach(RedisNode::stop);
	}

	private void awaitHealthy() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			boolean healthy = true;
			for (RedisNode node : nodes) {
				String info = (String) node.call("CLUSTER", "INFO");
				healthy &= info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes.size());
			}
			if (healthy) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Cluster " + uris() + " not healthy within 30 s: "
						+ nodes.get(0).call("CLUSTER", "INFO"));
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while the cluster formed", ex);
			}
		}
	}

}
