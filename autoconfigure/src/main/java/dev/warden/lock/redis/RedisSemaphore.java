package dev.warden.lock.redis;

import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedSemaphore;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

/**
 * {@link DistributedSemaphore} on Redis, with Redisson's {@code RSemaphore} layout.
 */
public final class RedisSemaphore implements DistributedSemaphore {

	/** The prefix of every semaphore's channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_sc";

	private final String name;

	private final String channel;

	private final String[] keys;

	private final RedisEngine engine;

	/**
	 * @param name the semaphore's name and Redis key
	 * @param engine the client's engine
	 */
	public RedisSemaphore(String name, RedisEngine engine) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A semaphore name must not be null or blank");
		}
		this.name = name;
		this.channel = CHANNEL_PREFIX + ":{" + name + "}";
		this.keys = new String[] { name };
		this.engine = engine;
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public boolean trySetPermits(int permits) {
		if (permits < 0) {
			throw new IllegalArgumentException("Permits must not be negative: " + permits);
		}
		Long set = engine.await(engine.eval(LockScripts.SEMAPHORE_SET_PERMITS, ScriptOutputType.INTEGER, keys,
				Integer.toString(permits), channel), "permits of semaphore '" + name + "'");
		return set != null && set == 1L;
	}

	@Override
	public void acquire() throws InterruptedException {
		acquire(1);
	}

	@Override
	public void acquire(int permits) throws InterruptedException {
		await(requirePositive(permits), BlockingWait.FOREVER);
	}

	@Override
	public boolean tryAcquire() {
		return attempt(1) == null;
	}

	@Override
	public boolean tryAcquire(int permits, long waitTime, TimeUnit unit) throws InterruptedException {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return await(requirePositive(permits), unit.toNanos(waitTime));
	}

	@Override
	public void release() {
		release(1);
	}

	@Override
	public void release(int permits) {
		engine.await(engine.eval(LockScripts.SEMAPHORE_RELEASE, ScriptOutputType.INTEGER, keys,
				Integer.toString(requirePositive(permits)), channel), "release of semaphore '" + name + "'");
	}

	@Override
	public int availablePermits() {
		String value = engine.await(engine.commands().get(name), "permits of semaphore '" + name + "'");
		return (value != null) ? Integer.parseInt(value) : 0;
	}

	@Override
	public String toString() {
		return "RedisSemaphore[" + name + "]";
	}

	private boolean await(int permits, long waitNanos) throws InterruptedException {
		// A release announces how many permits are available: wake that many waiters.
		return BlockingWait.await(engine, channel, () -> new LockWaiters(RedisSemaphore::permitsIn), waitNanos,
				() -> attempt(permits), "semaphore '" + name + "'");
	}

	private Long attempt(int permits) {
		Long available = engine.await(engine.eval(LockScripts.SEMAPHORE_ACQUIRE, ScriptOutputType.INTEGER, keys,
				Integer.toString(permits)), "acquire of semaphore '" + name + "'");
		// Acquired: done. Otherwise sleep until a release is announced.
		return (available != null && available == -1L) ? null : -1L;
	}

	private static int permitsIn(String message) {
		try {
			return (int) Math.min(Integer.MAX_VALUE, Math.max(1, Long.parseLong(message)));
		}
		catch (NumberFormatException ex) {
			return 1;
		}
	}

	private static int requirePositive(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits must be at least 1: " + permits);
		}
		return permits;
	}

}
