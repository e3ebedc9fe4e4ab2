package dev.warden.lock.redis;

import java.util.function.Supplier;

import dev.warden.lock.DistributedSimpleLock;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;

/**
 * {@link DistributedSimpleLock} on Redis: a string at the lock's name holding the owner's id,
 * taken in one script call and released with a compare-and-delete; see {@link SimpleLayout}.
 * <p>
 * Instances are cheap views of one lock name; every state lives in Redis, in the client's
 * {@link LeaseRenewal} and in the client's channel subscriptions.
 */
public final class RedisSimpleLock extends ExclusiveLock implements DistributedSimpleLock {

	/**
	 * A simple lock.
	 * @param name the lock's name and Redis key
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public RedisSimpleLock(String name, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		super(new SimpleLayout(name, renewal.holds(), engine.namespace()), engine, renewal, currentThreadOwner);
	}

}
