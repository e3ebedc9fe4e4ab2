package dev.warden.lock.redis;

import java.util.function.Supplier;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedReadWriteLock;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;

/**
 * {@link DistributedReadWriteLock} on Redis, with Redisson's {@code RReadWriteLock} layout.
 */
public final class RedisReadWriteLock implements DistributedReadWriteLock {

	/** The prefix of every read-write lock's channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_rwlock";

	/** Appended to an owner id to make its write-hold field. */
	static final String WRITE_SUFFIX = ":write";

	private final String name;

	private final DistributedReentrantLock readLock;

	private final DistributedReentrantLock writeLock;

	/**
	 * @param name the lock's name and Redis key
	 * @param engine the client's engine
	 * @param renewal the client's watchdog
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public RedisReadWriteLock(String name, RedisEngine engine, LeaseRenewal renewal,
			Supplier<LockOwner> currentThreadOwner) {
		this.name = name;
		this.readLock = new RedisDistributedLock(new ReadLayout(name, engine.namespace()), engine, renewal,
				currentThreadOwner);
		this.writeLock = new RedisDistributedLock(new WriteLayout(name, engine.namespace()), engine, renewal,
				currentThreadOwner);
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public DistributedReentrantLock readLock() {
		return readLock;
	}

	@Override
	public DistributedReentrantLock writeLock() {
		return writeLock;
	}

}
