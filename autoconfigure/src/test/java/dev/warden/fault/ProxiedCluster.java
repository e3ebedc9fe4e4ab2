package dev.warden.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * A Redis Cluster one of whose masters is reached through a {@link TcpProxy}: it announces the
 * proxy's address from the start (a node's view of itself keeps the address it started with), so
 * that the client's connections to it go through the proxy. Closing it closes the Warden client it
 * opened, that client's Lettuce client and the nodes.
 */
final class ProxiedCluster implements AutoCloseable {

	private final TcpProxy proxy;

	private final List<RedisNode> nodes;

	private final RedisNode owner;

	private final RedisNode proxied;

	private RedisClusterClient client;

	private Warden warden;

	private ProxiedCluster(TcpProxy proxy, List<RedisNode> nodes, RedisNode owner, RedisNode proxied) {
		this.proxy = proxy;
		this.nodes = nodes;
		this.owner = owner;
		this.proxied = proxied;
	}

	/** One master, behind the proxy, serving every slot. */
	static ProxiedCluster oneNode(TcpProxy proxy, String name) throws InterruptedException {
		RedisNode node = proxiedNode(proxy, name);
		ProxiedCluster cluster = new ProxiedCluster(proxy, List.of(node), node, node);
		try {
			addEverySlot(node);
			Eventually.await("the cluster is up",
					() -> ((String) node.call("CLUSTER", "INFO")).contains("cluster_state:ok"));
			return cluster;
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Master A, reached directly, serving every slot, and master B, behind the proxy, serving none
	 * (a slot moved or migrated to it later reaches it by a redirect).
	 */
	static ProxiedCluster withSlotlessMasterBehind(TcpProxy proxy, String name) throws InterruptedException {
		RedisNode a = RedisNode.start(clusterNode(name + "-a"));
		RedisNode b;
		try {
			b = proxiedNode(proxy, name + "-b");
		}
		catch (RuntimeException ex) {
			a.stop();
			throw ex;
		}
		ProxiedCluster cluster = new ProxiedCluster(proxy, List.of(a, b), a, b);
		try {
			addEverySlot(a);
			a.call("CLUSTER", "MEET", b.host(), Integer.toString(b.port()));
			String bId = cluster.id(b);
			Eventually.await("the cluster is up", Duration.ofSeconds(60),
					() -> ((String) a.call("CLUSTER", "INFO")).contains("cluster_state:ok")
							&& ((String) b.call("CLUSTER", "INFO")).contains("cluster_state:ok")
							&& ((String) a.call("CLUSTER", "NODES")).contains(bId)
							&& ((String) b.call("CLUSTER", "NODES")).contains("connected")
							&& ((String) a.call("CLUSTER", "NODES")).contains(":" + proxy.port() + "@"));
			return cluster;
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	private static RedisNode.Config clusterNode(String name) {
		return RedisNode.config()
			.name(name)
			.option("cluster-enabled", "yes")
			.option("cluster-config-file", "nodes.conf")
			.option("cluster-node-timeout", "5000");
	}

	private static RedisNode proxiedNode(TcpProxy proxy, String name) {
		RedisNode node = RedisNode.start(clusterNode(name).option("cluster-announce-ip", proxy.host())
			.option("cluster-announce-port", Integer.toString(proxy.port())));
		proxy.target(node);
		return node;
	}

	private static void addEverySlot(RedisNode node) {
		List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
		for (int slot = 0; slot < 16384; slot++) {
			addSlots.add(Integer.toString(slot));
		}
		node.call(addSlots.toArray(String[]::new));
	}

	/** The master that serves every slot at the start. */
	RedisNode owner() {
		return owner;
	}

	/** The master behind the proxy. */
	RedisNode proxied() {
		return proxied;
	}

	/** The cluster node id of {@code node}. */
	String id(RedisNode node) {
		return (String) node.call("CLUSTER", "MYID");
	}

	/** A Warden client on the cluster, seeded with the owner's address; closed with the cluster. */
	Warden open(Duration commandTimeout) {
		RedisURI seed = (owner == proxied) ? RedisURI.create(proxy.host(), proxy.port())
				: RedisURI.create(owner.host(), owner.port());
		client = RedisClusterClient.create(seed);
		warden = Warden.builder(client).commandTimeout(commandTimeout).build();
		return warden;
	}

	@Override
	public void close() {
		try {
			if (warden != null) {
				warden.close();
			}
		}
		finally {
			if (client != null) {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
			nodes.forEach(RedisNode::stop);
		}
	}

}
