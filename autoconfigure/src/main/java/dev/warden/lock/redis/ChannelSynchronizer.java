package dev.warden.lock.redis;

import dev.warden.redis.RedisEngine;

/**
 * What a semaphore and a latch share: a name that is their Redis key, the channel on which they
 * announce what their waiters wait for, and the client's engine.
 */
abstract class ChannelSynchronizer {

	final String name;

	final String channel;

	final RedisEngine engine;

	/**
	 * @param name the name, checked already
	 * @param channel the channel, in the name's hash slot
	 * @param engine the client's engine
	 */
	ChannelSynchronizer(String name, String channel, RedisEngine engine) {
		this.name = name;
		this.channel = channel;
		this.engine = engine;
	}

	/** The name, which is also the Redis key. */
	public String getName() {
		return name;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + name + "]";
	}

}
