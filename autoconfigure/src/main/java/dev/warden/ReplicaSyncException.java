package dev.warden;

/**
 * A write that must survive a fail-over (a schedule, by default wherever the master has a replica)
 * was not acknowledged by the replicas it waited for ({@code WAIT}), so it was not acknowledged to
 * the caller either: the replica is stalled or too slow for the timeout, or the master has lost the
 * replicas it had (a fail-over promoted one, and the deposed master still takes writes until the
 * Sentinels demote it). The write may be on the master without being on a replica, and may be lost
 * if the master fails over now.
 * <p>
 * Doing it again is safe and is how to recover: scheduling again with the same id does not add a
 * second task. A call made once Warden has moved to the new master (within seconds of a fail-over)
 * or once the replica acknowledges again succeeds.
 */
public class ReplicaSyncException extends RedisUnavailableException {

	private static final long serialVersionUID = 1L;

	/**
	 * A write the replicas did not acknowledge in time.
	 * @param message the write, and how far the replicas fell short
	 */
	public ReplicaSyncException(String message) {
		super(message);
	}

}
