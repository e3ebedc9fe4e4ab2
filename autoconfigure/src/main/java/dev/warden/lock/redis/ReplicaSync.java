package dev.warden.lock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.warden.WardenDefaults;
import dev.warden.redis.ReplicaCount;
import org.jspecify.annotations.Nullable;

/**
 * The fail-over check made after each write that must survive a fail-over (a lock acquisition, a
 * schedule): {@code WAIT} until enough replicas acknowledged it, within {@code timeout}; otherwise an
 * acquisition is given back and a schedule fails. On a Redis Cluster the {@code WAIT} goes to the
 * master that serves the write's key, and counts that master's replicas
 * ({@link dev.warden.redis.RedisEngine#writeReplicated}).
 * <p>
 * How many replicas is either a fixed number ({@code 0} turns the check off) or {@link #AUTO}: one
 * when the master has a replica, none when it never had one, following the master's replicas as
 * they come and across fail-overs, so that a deployment without replicas pays nothing. A master
 * that had replicas and has none left (a fail-over promoted its replica, and it takes writes until
 * the Sentinels demote it) is still asked for one, and its writes fail: as Redis's own
 * {@code min-replicas-to-write}, on the client. The master Warden moves to after a fail-over starts
 * afresh. On a Redis Cluster all this holds for each master.
 */
public final class ReplicaSync {

	/** The number of replicas that means "one when the master has any". */
	public static final int AUTO = -1;

	/** No check. */
	public static final ReplicaSync OFF = new ReplicaSync(0, WardenDefaults.REPLICA_SYNC_TIMEOUT);

	private final int replicas;

	private final Duration timeout;

	private final @Nullable ReplicaCount count;

	/**
	 * @param replicas how many replicas must acknowledge: {@link #AUTO}, or a fixed number, 0 for none
	 * @param timeout how long to wait for them
	 */
	public ReplicaSync(int replicas, Duration timeout) {
		this(replicas, timeout, null);
	}

	private ReplicaSync(int replicas, Duration timeout, @Nullable ReplicaCount count) {
		if (replicas < AUTO) {
			throw new IllegalArgumentException("Replicas must be " + AUTO + " (auto) or not negative: " + replicas);
		}
		this.replicas = replicas;
		this.timeout = WardenDefaults.requirePositive("The replica sync timeout", timeout);
		this.count = count;
	}

	/**
	 * @param timeout how long to wait for the replica
	 * @return the check that waits for one replica when the master has any
	 */
	public static ReplicaSync auto(Duration timeout) {
		return new ReplicaSync(AUTO, timeout);
	}

	/**
	 * @param count the master's replicas as the client last saw them
	 * @return this check, counting the replicas of an {@link #AUTO} check from {@code count}
	 */
	public ReplicaSync counting(ReplicaCount count) {
		return new ReplicaSync(replicas, timeout, count);
	}

	/** How many replicas were asked for: {@link #AUTO} or a fixed number. */
	public int replicas() {
		return replicas;
	}

	/** How long to wait for them. */
	public Duration timeout() {
		return timeout;
	}

	/** Whether the number of replicas follows the master's. */
	public boolean isAuto() {
		return replicas == AUTO;
	}

	/**
	 * How many replicas a write must reach now: for {@link #AUTO}, one if the master has any, or had
	 * some and has lost them.
	 */
	public int required() {
		if (!isAuto()) {
			return replicas;
		}
		ReplicaCount known = count;
		return (known != null && known.expectsReplica()) ? 1 : 0;
	}

	/**
	 * How many replicas a write of {@code key} must reach now: like {@link #required()}, counting the
	 * replicas of the master that serves the key on a Redis Cluster.
	 */
	public int required(String key) {
		if (!isAuto()) {
			return replicas;
		}
		ReplicaCount known = count;
		return (known != null && known.expectsReplica(key)) ? 1 : 0;
	}

	/** Whether writes wait for replicas now (on a Redis Cluster, those of any master). */
	public boolean enabled() {
		return required() > 0;
	}

	/**
	 * Whether a write that {@code acknowledged} replicas acknowledged counts: only when they are as
	 * many as it waited for. A shortfall of an {@link #AUTO} check has the master's replicas read
	 * again first, so that the next write waits for what the master has now (none on a master never
	 * seen with replicas, such as the one Warden moved to after a fail-over) and {@link #shortfall}
	 * can say why.
	 * @param key a key of the write (on a Redis Cluster, its master's replicas are read again)
	 * @param acknowledged what {@code WAIT} answered
	 * @param required the replicas it waited for
	 * @return completes with whether the write counts
	 */
	public CompletableFuture<Boolean> accepts(String key, @Nullable Long acknowledged, int required) {
		if (acknowledged != null && acknowledged >= required) {
			return CompletableFuture.completedFuture(true);
		}
		ReplicaCount known = count;
		if (!isAuto() || known == null) {
			return CompletableFuture.completedFuture(false);
		}
		return known.refresh(key).handle((replicasNow, failure) -> false);
	}

	/**
	 * Why a write was not acknowledged by enough replicas, for an exception or a log line.
	 * @param key a key of the write (on a Redis Cluster, it names the master)
	 * @param acknowledged what {@code WAIT} answered
	 * @param required the replicas it waited for
	 * @return the reason, beginning with "not acknowledged", ending without a full stop
	 */
	public String shortfall(String key, @Nullable Long acknowledged, int required) {
		ReplicaCount known = count;
		if (known != null && known.lostReplicas(key)) {
			return "not acknowledged by a replica: the master had replicas and has none now (" + acknowledged + " of "
					+ required + " acknowledged); a fail-over may have promoted its replica, and what a deposed "
					+ "master takes is lost once it is demoted";
		}
		return "not acknowledged by " + required + " replica(s) within " + timeout.toMillis() + " ms ("
				+ acknowledged + " did)";
	}

	@Override
	public String toString() {
		return (isAuto() ? "auto" : Integer.toString(replicas)) + " replica(s) within " + timeout.toMillis() + " ms";
	}

}
