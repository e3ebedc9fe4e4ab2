package dev.warden;

import java.time.Duration;
import java.util.List;

import dev.warden.redis.Fleet;
import dev.warden.test.redis.RedisNode;

/**
 * An instance of an older version in the fleet registry, announced by hand: while it counts as
 * live, the clients that announce themselves on the same Redis write the stored formats it reads.
 * A client opened meanwhile with a long announce interval keeps writing them after it is gone.
 */
public final class OlderFleetMember implements AutoCloseable {

	private static final String ID = "older-version-instance";

	private final RedisNode node;

	private OlderFleetMember(RedisNode node) {
		this.node = node;
	}

	/**
	 * Announces a member that reads tasks in stored format 1 only, live for a minute.
	 * @param node the Redis
	 * @return the member, withdrawn when closed
	 */
	public static OlderFleetMember readingTasksFormat1(RedisNode node) {
		List<?> time = (List<?>) node.call("TIME");
		long inAMinute = Long.parseLong((String) time.get(0)) * 1000 + Duration.ofMinutes(1).toMillis();
		node.call("HSET", Fleet.instancesKey(Fleet.DEFAULT_NAMESPACE), ID,
				"version=0.1.0;reads=tasks:1,limiters:1;writes=tasks:1,limiters:1;started=1;");
		node.call("ZADD", Fleet.expiryKey(Fleet.DEFAULT_NAMESPACE), Long.toString(inAMinute), ID);
		return new OlderFleetMember(node);
	}

	@Override
	public void close() {
		node.call("HDEL", Fleet.instancesKey(Fleet.DEFAULT_NAMESPACE), ID);
		node.call("ZREM", Fleet.expiryKey(Fleet.DEFAULT_NAMESPACE), ID);
	}

}
