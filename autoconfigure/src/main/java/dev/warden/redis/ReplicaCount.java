package dev.warden.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many replicas the master has, as {@code INFO replication} last said: read when the client
 * connects, after each reconnect (a fail-over lands on another master) and every few seconds (a
 * replica attaches or leaves). The automatic replica check waits for one replica when this is not
 * zero. Cluster clients always see zero: {@code WAIT} there does not reach the node of a key.
 */
public final class ReplicaCount implements IntSupplier {

	private static final Logger logger = LoggerFactory.getLogger(ReplicaCount.class);

	/** How often the count is read again. */
	static final Duration REFRESH_INTERVAL = Duration.ofSeconds(5);

	private final RedisEngine engine;

	private volatile int replicas;

	private final AtomicBoolean unreadableReported = new AtomicBoolean();

	/**
	 * @param engine the connections to ask on
	 */
	public ReplicaCount(RedisEngine engine) {
		this.engine = engine;
	}

	/**
	 * Reads the count now, waiting within the command timeout, then keeps it current: after each
	 * reconnect and every few seconds.
	 */
	public void start() {
		if (engine.isCluster()) {
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

	/** The replicas the master had when last asked. */
	@Override
	public int getAsInt() {
		return replicas;
	}

	/**
	 * Asks the master again.
	 * @return completes with the count read
	 */
	public CompletableFuture<Integer> refresh() {
		if (engine.isCluster()) {
			return CompletableFuture.completedFuture(0);
		}
		CompletableFuture<String> info;
		try {
			info = engine.infoAsync("replication");
		}
		catch (RuntimeException ex) {
			info = CompletableFuture.failedFuture(ex);
		}
		return info.handle((text, failure) -> {
			if (failure != null) {
				unreadable(failure);
				throw new IllegalStateException("INFO replication failed", failure);
			}
			int count = parse(text);
			if (count != replicas) {
				logger.debug("The master has {} replica(s) now (was {})", count, replicas);
			}
			replicas = count;
			return count;
		});
	}

	/** The replicas of a master from {@code INFO replication}; a replica's own answer counts none. */
	static int parse(String info) {
		boolean master = false;
		int count = 0;
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("role:")) {
				master = line.substring("role:".length()).trim().equals("master");
			}
			else if (line.startsWith("connected_slaves:")) {
				count = Integer.parseInt(line.substring("connected_slaves:".length()).trim());
			}
		}
		return master ? count : 0;
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
