package dev.warden.test.redis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

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
		return start(masters, 0);
	}

	/**
	 * Starts {@code masters} masters with {@code replicasPerMaster} replicas each: the masters
	 * first in {@link #nodes()}, then the replicas, those of master {@code i} at
	 * {@code masters + i * replicasPerMaster}. Returns once the cluster is healthy, every node linked
	 * to every other over the cluster bus (which carries {@code PUBLISH}), and every replica is in
	 * sync with its master.
	 */
	public static RedisCluster start(int masters, int replicasPerMaster) {
		return start(masters, replicasPerMaster, null);
	}

	/** Like {@link #start(int, int)}, every node running {@code server} ({@code null}: the harness's own). */
	public static RedisCluster start(int masters, int replicasPerMaster, @Nullable Path server) {
		if (masters < 1 || replicasPerMaster < 0) {
			throw new IllegalArgumentException("A cluster needs at least one master, and no negative count of replicas");
		}
		int total = masters * (1 + replicasPerMaster);
		List<RedisNode> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < total; i++) {
				nodes.add(RedisNode.start(RedisNode.config()
					.server(server)
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
			for (int i = 1; i < total; i++) {
				nodes.get(0).call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.awaitHealthy();
			for (int i = masters; i < total; i++) {
				RedisNode master = nodes.get((i - masters) / Math.max(1, replicasPerMaster));
				nodes.get(i).call("CLUSTER", "REPLICATE", (String) master.call("CLUSTER", "MYID"));
			}
			for (int i = masters; i < total; i++) {
				RedisNode replica = nodes.get(i);
				Processes.await("replica " + replica + " in sync", Duration.ofSeconds(60),
						() -> ((String) replica.call("INFO", "replication")).contains("master_link_status:up"));
			}
			if (replicasPerMaster > 0) {
				cluster.awaitHealthy();
			}
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

	/**
	 * The index in {@link #nodes()} of the master that serves {@code slot}, as that node's
	 * {@code CLUSTER SLOTS} says.
	 */
	public int ownerOf(int slot) {
		for (Object range : (List<?>) nodes.get(0).call("CLUSTER", "SLOTS")) {
			List<?> fields = (List<?>) range;
			if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1)) {
				int port = ((Long) ((List<?>) fields.get(2)).get(1)).intValue();
				for (int i = 0; i < nodes.size(); i++) {
					if (nodes.get(i).port() == port) {
						return i;
					}
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * Moves {@code slot} to another master while clients keep using it, the way a resharding tool
	 * does: the target imports it, the source migrates it, its keys move one {@code MIGRATE} at a
	 * time with a pause between them (clients meanwhile get {@code ASK} redirections, and
	 * {@code TRYAGAIN} for commands whose keys are split), then every master learns the new owner
	 * (replicas learn it from their masters).
	 * @param slot the slot
	 * @param to the index in {@link #nodes()} of the new owner
	 * @param pauseMillis the pause after each key moved
	 * @return how many keys were moved
	 */
	public int migrateSlot(int slot, int to, long pauseMillis) {
		RedisNode source = nodes.get(ownerOf(slot));
		RedisNode target = nodes.get(to);
		if (source == target) {
			throw new IllegalArgumentException("Slot " + slot + " is on node " + to + " already");
		}
		String sourceId = (String) source.call("CLUSTER", "MYID");
		String targetId = (String) target.call("CLUSTER", "MYID");
		String slotText = Integer.toString(slot);
		target.call("CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId);
		source.call("CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId);
		int moved = 0;
		for (int round = 0; round < 10_000; round++) {
			List<?> keys = (List<?>) source.call("CLUSTER", "GETKEYSINSLOT", slotText, "1");
			if (keys.isEmpty()) {
				target.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
				source.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
				for (RedisNode node : nodes) {
					if (node != source && node != target && isMaster(node)) {
						node.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
					}
				}
				return moved;
			}
			Object reply = source.call("MIGRATE", target.host(), Integer.toString(target.port()), (String) keys.get(0),
					"0", "5000");
			if (!"OK".equals(reply) && !"NOKEY".equals(reply)) {
				throw new IllegalStateException("MIGRATE of " + keys.get(0) + " answered " + reply);
			}
			moved++;
			try {
				TimeUnit.MILLISECONDS.sleep(pauseMillis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while migrating slot " + slot, ex);
			}
		}
		throw new IllegalStateException("Slot " + slot + " still had keys after 10,000 moves");
	}

	/**
	 * Promotes {@code replica} in place of its master ({@code CLUSTER FAILOVER}, the manual fail-over:
	 * the master stops taking writes until the replica has caught up) and returns once the replica
	 * reports itself a master.
	 */
	public void failover(RedisNode replica) {
		// A manual fail-over gives up when the replica does not catch up in time (a busy machine):
		// asked again, up to five times.
		for (int attempt = 1;; attempt++) {
			replica.call("CLUSTER", "FAILOVER");
			if (Processes.holdsWithin(Duration.ofSeconds(12), Duration.ofMillis(20),
					() -> ((String) replica.call("INFO", "replication")).contains("role:master"))) {
				return;
			}
			if (attempt == 5) {
				throw new IllegalStateException("No fail-over to " + replica + " after 5 attempts: "
						+ nodes.get(0).call("CLUSTER", "NODES"));
			}
		}
	}

	private static boolean isMaster(RedisNode node) {
		return String.valueOf(node.call("INFO", "replication")).contains("role:master");
	}

	@Override
	public void close() {
		nodes.forEach(RedisNode::stop);
	}

	/**
	 * Whether {@code node} knows every node by its id, past the handshake, over a bus link that is up.
	 * A {@code PUBLISH} reaches the other nodes over those links: one still down drops the message.
	 */
	private boolean linksUp(RedisNode node) {
		String[] lines = ((String) node.call("CLUSTER", "NODES")).strip().split("\n");
		if (lines.length != nodes.size()) {
			return false;
		}
		for (String line : lines) {
			String[] fields = line.strip().split(" ");
			String flags = fields[2];
			if (flags.contains("handshake") || flags.contains("noaddr") || flags.contains("fail")
					|| !fields[7].equals("connected")) {
				return false;
			}
		}
		return true;
	}

	private void awaitHealthy() {
		boolean healthy = Processes.holdsWithin(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
			for (RedisNode node : nodes) {
				String info = (String) node.call("CLUSTER", "INFO");
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes.size())
						|| !linksUp(node)) {
					return false;
				}
			}
			return true;
		});
		if (!healthy) {
			throw new IllegalStateException("Cluster " + uris() + " not healthy within 30 s: "
					+ nodes.get(0).call("CLUSTER", "INFO"));
		}
	}

}
