package dev.warden.test.redis;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A Sentinel-managed Redis of real processes: one master, one replica and three Sentinels (quorum
 * two), started and in agreement before {@link #start()} returns. Sentinels declare the master down
 * after a second without answers.
 *
 * <pre>{@code
 * try (RedisSentinel redis = RedisSentinel.start()) {
 *     RedisURI uri = RedisURI.Builder.sentinel(host, port, RedisSentinel.MASTER_NAME)...;
 * }
 * }</pre>
 */
public final class RedisSentinel implements AutoCloseable {

	/** The name the Sentinels know the master by. */
	public static final String MASTER_NAME = "warden-master";

	private static final int SENTINELS = 3;

	/** The longest wait for the Sentinels to agree, promote or see a replica in sync. */
	private static final Duration WAIT = Duration.ofSeconds(60);

	/** How long one fail-over may take before it is asked for again: twice the failover-timeout. */
	private static final Duration ATTEMPT = Duration.ofSeconds(12);

	private final List<RedisNode> dataNodes;

	private final List<RedisNode> sentinels;

	private RedisSentinel(List<RedisNode> dataNodes, List<RedisNode> sentinels) {
		this.dataNodes = List.copyOf(dataNodes);
		this.sentinels = List.copyOf(sentinels);
	}

	/** Starts the master, its replica and the Sentinels, and waits until they all agree. */
	public static RedisSentinel start() {
		return start(null);
	}

	/** Like {@link #start()}, every node running {@code server} ({@code null}: the harness's own). */
	public static RedisSentinel start(@Nullable Path server) {
		List<RedisNode> data = new ArrayList<>();
		List<RedisNode> sentinels = new ArrayList<>();
		try {
			RedisNode master = RedisNode.start(RedisNode.config().server(server).name("sentinel-master"));
			data.add(master);
			data.add(RedisNode.start(RedisNode.config()
				.server(server)
				.name("sentinel-replica")
				.option("replicaof", master.host(), Integer.toString(master.port()))));
			for (int i = 0; i < SENTINELS; i++) {
				sentinels.add(RedisNode.start(RedisNode.config()
					.server(server)
					.name("sentinel-" + i)
					.sentinelOf(MASTER_NAME, master, 2)));
			}
			RedisSentinel topology = new RedisSentinel(data, sentinels);
			topology.awaitAgreement(master);
			return topology;
		}
		catch (RuntimeException ex) {
			sentinels.forEach(RedisNode::stop);
			data.forEach(RedisNode::stop);
			throw ex;
		}
	}

	/** The Sentinels. */
	public List<RedisNode> sentinels() {
		return sentinels;
	}

	/** {@code host:port} of every Sentinel, as {@code spring.data.redis.sentinel.nodes} takes them. */
	public String sentinelHostsAndPorts() {
		return String.join(",", sentinels.stream().map(node -> node.host() + ":" + node.port()).toList());
	}

	/** The master, as the first Sentinel names it now. */
	public RedisNode master() {
		List<?> address = (List<?>) sentinels.get(0).call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
		int port = Integer.parseInt((String) address.get(1));
		return dataNodes.stream()
			.filter(node -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Unknown master port " + port));
	}

	/** The data node that is not the master. */
	public RedisNode replica() {
		RedisNode master = master();
		return dataNodes.stream().filter(node -> node != master).findFirst().orElseThrow();
	}

	/**
	 * Fails the master over to its replica ({@code SENTINEL FAILOVER}) and returns once every
	 * Sentinel names the replica as the master.
	 * @return the new master
	 */
	public RedisNode failover() {
		RedisNode replica = replica();
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (true) {
			requestFailover(replica);
			// A fail-over the Sentinels abort (the replica slow to answer on a loaded machine: it is
			// given failover-timeout, 5 s) is not tried again by them: asked again, while none of them
			// names the replica the master yet.
			Duration attempt = Duration.ofNanos(Math.max(0, Math.min(ATTEMPT.toNanos(), deadline - System.nanoTime())));
			if (Processes.holdsWithin(attempt, Duration.ofMillis(50), () -> mastersNamed(replica) == sentinels.size())) {
				return replica;
			}
			if (System.nanoTime() >= deadline) {
				throw new IllegalStateException("Timed out after " + WAIT.toSeconds() + " s waiting for every Sentinel to "
						+ "name " + replica + " the master");
			}
			if (mastersNamed(replica) > 0) {
				Processes.await("every Sentinel to name " + replica + " the master",
						Duration.ofNanos(Math.max(0, deadline - System.nanoTime())),
						() -> mastersNamed(replica) == sentinels.size());
				return replica;
			}
		}
	}

	/** Asks a Sentinel for a fail-over, again while it answers NOGOODSLAVE. */
	private void requestFailover(RedisNode replica) {
		// A replica the Sentinels have not yet seen healthy (one turned into a replica by an earlier
		// fail-over, say: Sentinels ask replicas for INFO every 10 s) is refused: NOGOODSLAVE. Asked
		// again until they have.
		Processes.await("the Sentinels to accept a fail-over to " + replica, WAIT, () -> {
			try {
				sentinels.get(0).call("SENTINEL", "FAILOVER", MASTER_NAME);
				return true;
			}
			catch (java.io.UncheckedIOException ex) {
				if (String.valueOf(ex.getCause()).contains("NOGOODSLAVE")
						|| String.valueOf(ex.getCause()).contains("INPROG")) {
					return false;
				}
				throw ex;
			}
		});
	}

	/** How many Sentinels name {@code node} the master now. */
	private int mastersNamed(RedisNode node) {
		int naming = 0;
		for (RedisNode sentinel : sentinels) {
			List<?> address = (List<?>) sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
			if (Integer.parseInt((String) address.get(1)) == node.port()) {
				naming++;
			}
		}
		return naming;
	}

	/**
	 * Waits until the replica of the current master has caught up with it. A master deposed by
	 * {@link #failover()} that still acts as one, or a data node that follows another than the master
	 * the Sentinels name, is made its replica first, as the Sentinels would once they notice (they
	 * ask it for {@code INFO} every 10 s, and wait for it to say so twice).
	 * @throws IllegalStateException when it is not in sync within a minute, with what each Sentinel
	 * and data node says of the replication
	 */
	public void awaitReplicaInSync() {
		boolean inSync = Processes.holdsWithin(WAIT, Duration.ofMillis(50), () -> {
			try {
				// Asked each time: the Sentinels may still be settling the last fail-over. Nothing is
				// changed until every one of them names the same master: a node told to follow a master
				// that one Sentinel still names after the others moved on would follow the old master
				// while the Sentinels turn that into a replica of the new one, each a replica of the other.
				RedisNode master = master();
				if (mastersNamed(master) != sentinels.size()) {
					return false;
				}
				RedisNode replica = replica();
				if (!"master".equals(((List<?>) master.call("ROLE")).get(0))) {
					// Made a replica (of the deposed master, say) against the Sentinels' word.
					master.call("REPLICAOF", "NO", "ONE");
					return false;
				}
				String replication = (String) replica.call("INFO", "replication");
				if (!replication.contains("master_port:" + master.port() + "\r")) {
					// Still a master, or following another: made a replica of the master they name.
					replica.call("REPLICAOF", master.host(), Integer.toString(master.port()));
					return false;
				}
				return replication.contains("master_link_status:up");
			}
			catch (UncheckedIOException ex) {
				// A deposed master turned into a replica drops its connections while it changes role.
				return false;
			}
		});
		if (!inSync) {
			throw new IllegalStateException("Timed out after " + WAIT.toSeconds() + " s waiting for the replica in sync; "
					+ describe());
		}
	}

	/** What the Sentinels and the data nodes say of the replication, for a failure's message. */
	private String describe() {
		List<String> states = new ArrayList<>();
		for (RedisNode sentinel : sentinels) {
			states.add(sentinel + " names the master " + ask(() -> sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME",
					MASTER_NAME)));
		}
		for (RedisNode node : dataNodes) {
			states.add(node + ": " + ask(() -> node.call("ROLE")) + ", "
					+ ask(() -> String.valueOf(node.call("INFO", "replication")).replace("\r\n", " ")));
		}
		return String.join("; ", states);
	}

	private static String ask(java.util.function.Supplier<Object> question) {
		try {
			return String.valueOf(question.get());
		}
		catch (RuntimeException ex) {
			return "(" + ex + ")";
		}
	}

	@Override
	public void close() {
		sentinels.forEach(RedisNode::stop);
		dataNodes.forEach(RedisNode::stop);
	}

	private void awaitAgreement(RedisNode master) {
		Processes.await("the Sentinels to agree on " + master + ", its replica and each other", WAIT, () -> {
			for (RedisNode sentinel : sentinels) {
				String info = (String) sentinel.call("INFO", "sentinel");
				if (!info.contains("status=ok,address=" + master.host() + ":" + master.port() + ",slaves=1,sentinels="
						+ SENTINELS)) {
					return false;
				}
			}
			return true;
		});
		awaitReplicaInSync();
	}

}
