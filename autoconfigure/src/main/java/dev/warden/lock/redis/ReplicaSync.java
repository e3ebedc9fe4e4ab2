package dev.warden.lock.redis;

import java.time.Duration;

import dev.warden.WardenDefaults;

/**
 * The fail-over check made after each write that must survive a fail-over (a lock acquisition, a
 * schedule): {@code WAIT} until {@code replicas} replicas acknowledged it, within {@code timeout};
 * otherwise an acquisition is given back and a schedule fails. Off when {@code replicas} is 0.
 * Standalone and Sentinel deployments only.
 *
 * @param replicas how many replicas must acknowledge; 0 turns the check off
 * @param timeout how long to wait for them
 */
public record ReplicaSync(int replicas, Duration timeout) {

	/** No check. */
	public static final ReplicaSync OFF = new ReplicaSync(0, WardenDefaults.REPLICA_SYNC_TIMEOUT);

	public ReplicaSync {
		if (replicas < 0) {
			throw new IllegalArgumentException("Replicas must not be negative: " + replicas);
		}
		WardenDefaults.requirePositive("The replica sync timeout", timeout);
	}

	/** Whether writes wait for replicas. */
	public boolean enabled() {
		return replicas > 0;
	}

}
