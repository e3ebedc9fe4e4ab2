package dev.warden.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many replicas the master has, as {@code INFO replication} last said: read when the client
 * connects, after each reconnect (a fail-over lands on another master), every few seconds (a
 * replica attaches or leaves) and after each write that fewer replicas than asked acknowledged. The
 * automatic replica check waits for one replica when this is not zero.
 * <p>
 * It also remembers the masters it saw with replicas, by replication id ({@code master_replid}):
 * one that had replicas and has none now is {@linkplain #lostReplicas() short of them}, and the
 * automatic check still waits for one there, so that its writes fail instead of being acknowledged
 * unreplicated. That is how a master deposed by a fail-over looks until the Sentinels demote it
 * (its replica was promoted, and it still takes writes, which are lost then). A promoted replica
 * starts a new replication history, with a new id, so the master Warden moves to is not held to its
 * predecessor's replicas; a master never seen with replicas is never asked to wait.
 * <p>
 * On a Redis Cluster the same is kept for each master that serves slots, read on the connection
 * Warden sends that master's writes on ({@link RedisEngine#node}): when the client connects, every
 * few seconds, and after a shortfall on that master. A write waits for a replica when the master of
 * its key has one or lost those it had (a master deposed by a fail-over still takes the writes of
 * clients that have not yet learnt of it). A node that answers as a replica has the client read the
 * cluster's topology again.
 */
public final class ReplicaCount implements IntSupplier {

	private static final Logger logger = LoggerFactory.getLogger(ReplicaCount.class);

	/** How often the count is read again. */
	static final Duration REFRESH_INTERVAL = Duration.ofSeconds(5);

	/** How many masters seen with replicas are remembered (the newest ones). */
	static final int REMEMBERED_MASTERS = 16;

	private final RedisEngine engine;

	private volatile Reading reading = Reading.NONE;

	/** On a Redis Cluster: the last reading of each master, by {@code host:port}. */
	private final Map<String, Reading> nodeReadings = new ConcurrentHashMap<>();

	/**
	 * On a Redis Cluster: whether a master's last reading expects a replica; while none does, a write
	 * looks up no master.
	 */
	private volatile boolean anyNodeExpectsReplica;

	/** The replication ids of the masters seen with replicas, oldest first. Guarded by itself. */
	private final Set<String> replicatedMasters = Collections.newSetFromMap(new LinkedHashMap<>() {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > REMEMBERED_MASTERS;
		}

	});

	private final AtomicBoolean unreadableReported = new AtomicBoolean();

	/**
	 * @param engine the connections to ask on
	 */
	public ReplicaCount(RedisEngine engine) {
		this.engine = engine;
	}

	/**
	 * What {@code INFO replication} said.
	 *
	 * @param master whether the node is a master
	 * @param replicationId its {@code master_replid}; {@code null} when not said
	 * @param replicas the replicas connected to it ({@code 0} for a replica)
	 * @param lost whether it has none but was seen with some: a master that lost its replicas
	 */
	record Reading(boolean master, @Nullable String replicationId, int replicas, boolean lost) {

		static final Reading NONE = new Reading(true, null, 0, false);

		Reading seenWithReplicas(boolean seen) {
			return new Reading(master, replicationId, replicas, master && replicas == 0 && seen);
		}

	}

	/**
	 * Reads the count now, waiting within the command timeout, then keeps it current: after each
	 * reconnect and every few seconds.
	 */
	public void start() {
		if (engine.isCluster()) {
			try {
				engine.await(refreshMasters(), "INFO replication on the masters");
			}
			catch (RuntimeException ex) {
				// Said by refresh(); the schedule below tries again.
			}
			engine.scheduler().scheduleWithFixedDelay(this::refreshMasters, REFRESH_INTERVAL.toMillis(),
					REFRESH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
			return;
		}
		try {
			engine.await(refresh(), "INFO replication");
		}
		catch (RuntimeException ex) {
			// Said by refresh(); the schedule below tries again.
		}
		engine.onReconnect(this::refresh);
		engine.scheduler().scheduleWithFixedDelay(this::refresh, REFRESH_INTERVAL.toMillis(),
				REFRESH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * The replicas the master had when last asked; on a Redis Cluster, the most any master had.
	 */
	@Override
	public int getAsInt() {
		if (engine.isCluster()) {
			return nodeReadings.values().stream().mapToInt(Reading::replicas).max().orElse(0);
		}
		return reading.replicas();
	}

	/**
	 * Whether writes should expect a replica's acknowledgement: the master had replicas when last
	 * asked, or has {@linkplain #lostReplicas() lost} those it had; on a Redis Cluster, whether any
	 * master does.
	 */
	public boolean expectsReplica() {
		if (engine.isCluster()) {
			return anyNodeExpectsReplica;
		}
		return expectsReplica(reading);
	}

	/**
	 * Whether a write of {@code key} should expect a replica's acknowledgement: like
	 * {@link #expectsReplica()}, for the master that serves the key on a Redis Cluster.
	 */
	public boolean expectsReplica(String key) {
		if (engine.isCluster() && !anyNodeExpectsReplica) {
			return false;
		}
		return expectsReplica(readingFor(key));
	}

	private static boolean expectsReplica(Reading reading) {
		return reading.replicas() > 0 || reading.lost();
	}

	/**
	 * Whether the master, when last asked, had no replica left of those Warden saw it with: a master
	 * deposed by a fail-over, still taking writes, or one whose replicas are all gone.
	 */
	public boolean lostReplicas() {
		return reading.lost();
	}

	/** Like {@link #lostReplicas()}, for the master that serves {@code key} on a Redis Cluster. */
	public boolean lostReplicas(String key) {
		return readingFor(key).lost();
	}

	private Reading readingFor(String key) {
		if (!engine.isCluster()) {
			return reading;
		}
		String master = engine.masterOf(key);
		Reading known = (master != null) ? nodeReadings.get(master) : null;
		return (known != null) ? known : Reading.NONE;
	}

	/**
	 * Asks the master again; on a Redis Cluster, every master.
	 * @return completes with the count read (on a Redis Cluster, the most any master has)
	 */
	public CompletableFuture<Integer> refresh() {
		if (engine.isCluster()) {
			return refreshMasters().thenApply(ignored -> getAsInt());
		}
		List<RedisEngine> lanes = engine.laneEngines();
		if (lanes.size() == 1) {
			return refresh(engine, null);
		}
		// Each command connection reconnects by itself, so after a fail-over one may be on the new
		// master while another is still on the deposed one: the reading is the most cautious of theirs.
		List<CompletableFuture<String>> infos = new ArrayList<>();
		for (RedisEngine lane : lanes) {
			try {
				infos.add(lane.infoAsync("replication"));
			}
			catch (RuntimeException ex) {
				infos.add(CompletableFuture.failedFuture(ex));
			}
		}
		return CompletableFuture.allOf(infos.toArray(CompletableFuture<?>[]::new)).handle((ignored, failure) -> {
			if (failure != null) {
				unreadable(failure);
				throw new IllegalStateException("INFO replication failed", failure);
			}
			return read(null, cautious(infos.stream().map(info -> parse(info.join())).toList())).replicas();
		});
	}

	/**
	 * One reading of the nodes the command connections are on, as cautious as the most cautious of
	 * theirs: the most replicas any has, and lost when any lost those it was seen with.
	 */
	Reading cautious(List<Reading> readings) {
		boolean allMasters = true;
		boolean lost = false;
		int replicas = 0;
		synchronized (replicatedMasters) {
			for (Reading parsed : readings) {
				remember(parsed);
			}
			for (Reading parsed : readings) {
				String id = parsed.replicationId();
				allMasters &= parsed.master();
				replicas = Math.max(replicas, parsed.replicas());
				lost |= parsed.seenWithReplicas(id != null && replicatedMasters.contains(id)).lost();
			}
		}
		return new Reading(allMasters, readings.get(0).replicationId(), replicas, lost);
	}

	/**
	 * Asks the master that serves {@code key} again.
	 * @return completes with the count read
	 */
	public CompletableFuture<Integer> refresh(String key) {
		if (!engine.isCluster()) {
			return refresh();
		}
		String master = engine.masterOf(key);
		if (master == null) {
			return CompletableFuture.completedFuture(0);
		}
		return engine.nodeAt(master).thenCompose(node -> refresh(node, master));
	}

	/** Asks every master of the Redis Cluster, and forgets the nodes that are no longer masters. */
	private CompletableFuture<Void> refreshMasters() {
		List<String> masters;
		try {
			masters = engine.masters();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (nodeReadings.keySet().retainAll(masters)) {
			synchronized (replicatedMasters) {
				anyNodeExpectsReplica = nodeReadings.values().stream().anyMatch(ReplicaCount::expectsReplica);
			}
		}
		CompletableFuture<?>[] reads = masters.stream()
			.map(master -> engine.nodeAt(master).thenCompose(node -> refresh(node, master)))
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.allOf(reads);
	}

	/** Asks {@code node}, the master at {@code address} on a Redis Cluster ({@code null} otherwise). */
	private CompletableFuture<Integer> refresh(RedisEngine node, @Nullable String address) {
		CompletableFuture<String> info;
		try {
			info = node.infoAsync("replication");
		}
		catch (RuntimeException ex) {
			info = CompletableFuture.failedFuture(ex);
		}
		return info.handle((text, failure) -> {
			if (failure != null) {
				unreadable(failure);
				throw new IllegalStateException("INFO replication failed", failure);
			}
			Reading parsed = parse(text);
			if (address != null && !parsed.master()) {
				// A node this client takes for a master is a replica: a fail-over demoted it.
				node.topologyChanged();
			}
			return read(address, parsed).replicas();
		});
	}

	/** Takes a reading as the current one, remembering a master seen with replicas. */
	Reading read(Reading parsed) {
		return read(null, parsed);
	}

	/**
	 * Takes a reading as the current one of the master, or of the Redis Cluster master at
	 * {@code address}, remembering a master seen with replicas.
	 */
	private Reading read(@Nullable String address, Reading parsed) {
		Reading before;
		Reading now;
		synchronized (replicatedMasters) {
			String id = parsed.replicationId();
			remember(parsed);
			now = parsed.lost() ? parsed : parsed.seenWithReplicas(id != null && replicatedMasters.contains(id));
			if (address == null) {
				before = reading;
				reading = now;
			}
			else {
				Reading previous = nodeReadings.put(address, now);
				before = (previous != null) ? previous : Reading.NONE;
				anyNodeExpectsReplica = nodeReadings.values().stream().anyMatch(ReplicaCount::expectsReplica);
			}
		}
		String master = (address != null) ? "Redis Cluster master " + address : "Redis master";
		if (now.lost() && !before.lost()) {
			logger.warn("The {} (replication id {}) had replicas and has none now: a fail-over may have "
					+ "promoted one, and this master may be deposed. Until Warden moves to the new master or a "
					+ "replica attaches again, writes that must survive a fail-over fail with ReplicaSyncException "
					+ "(safe to retry) instead of being acknowledged unreplicated", master, now.replicationId());
		}
		else if (before.lost() && !now.lost()) {
			logger.info("The {} (replication id {}) has {} replica(s) now", master, now.replicationId(),
					now.replicas());
		}
		else if (now.replicas() != before.replicas()) {
			logger.debug("The {} has {} replica(s) now (was {})", master, now.replicas(), before.replicas());
		}
		return now;
	}

	/** Called holding {@link #replicatedMasters}: remembers a master seen with replicas, as the newest. */
	private void remember(Reading parsed) {
		String id = parsed.replicationId();
		if (parsed.master() && id != null && parsed.replicas() > 0) {
			replicatedMasters.remove(id);
			replicatedMasters.add(id);
		}
	}

	/** The replicas of a master from {@code INFO replication}; a replica's own answer counts none. */
	static Reading parse(String info) {
		boolean master = false;
		int count = 0;
		String id = null;
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("role:")) {
				master = line.substring("role:".length()).trim().equals("master");
			}
			else if (line.startsWith("connected_slaves:")) {
				count = Integer.parseInt(line.substring("connected_slaves:".length()).trim());
			}
			else if (line.startsWith("master_replid:")) {
				id = line.substring("master_replid:".length()).trim();
			}
		}
		return new Reading(master, id, master ? count : 0, false);
	}

	private void unreadable(Throwable failure) {
		Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
		if (isRefused(cause) && unreadableReported.compareAndSet(false, true)) {
			logger.warn("Redis refused INFO replication ({}): Warden cannot tell whether the master has replicas, so "
					+ "writes do not wait for one; grant INFO to Warden's user, or set "
					+ "warden.lock.replica-sync.replicas and warden.delayed-task.replica-sync.replicas", cause.getMessage());
		}
		else {
			logger.debug("Could not read INFO replication", failure);
		}
	}

	private static boolean isRefused(Throwable cause) {
		String message = String.valueOf(cause.getMessage());
		return message.startsWith("NOPERM") || message.contains("unknown command") || message.startsWith("ERR");
	}

}
