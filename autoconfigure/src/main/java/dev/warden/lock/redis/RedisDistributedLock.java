package dev.warden.lock.redis;

import java.util.function.Supplier;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;

/**
 * {@link DistributedReentrantLock} on Redis, with Redisson's {@code RLock} layout (and its fair lock's,
 * and the sides of its read-write lock).
 * <p>
 * Instances are cheap views of one lock name; every state lives in Redis, in the client's
 * {@link LeaseRenewal} and in the client's channel subscriptions.
 */
public final class RedisDistributedLock extends ExclusiveLock implements DistributedReentrantLock {

	/** The prefix of every lock's release channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_lock__channel";

	/**
	 * A reentrant lock, Redisson's {@code RLock}.
	 * @param name the lock's name and Redis key
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public RedisDistributedLock(String name, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		this(new ReentrantLayout(name, engine.namespace()), engine, renewal, currentThreadOwner);
	}

	/**
	 * A fair lock, Redisson's fair {@code RLock}: waiters acquire in the order they arrived.
	 * @param name the lock's name and Redis key
	 * @param waiterTimeoutMillis how long a waiter keeps its place in the queue once its turn could
	 * have come (so a crashed waiter does not block those behind it for longer)
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 * @return the lock
	 */
	public static RedisDistributedLock fair(String name, long waiterTimeoutMillis, RedisEngine engine,
			LeaseRenewal renewal, Supplier<LockOwner> currentThreadOwner) {
		return new RedisDistributedLock(new FairLayout(name, waiterTimeoutMillis, engine.namespace()), engine, renewal,
				currentThreadOwner);
	}

	RedisDistributedLock(LockLayout layout, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		super(layout, engine, renewal, currentThreadOwner);
	}

	@Override
	public int getHoldCount() {
		return holdCount(currentThreadOwner());
	}

	@Override
	public int getHoldCount(LockOwner owner) {
		return holdCount(owner);
	}

}
