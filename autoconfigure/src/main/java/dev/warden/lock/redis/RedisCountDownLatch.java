package dev.warden.lock.redis;

import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

/**
 * {@link DistributedCountDownLatch} on Redis, with Redisson's {@code RCountDownLatch} layout.
 */
public final class RedisCountDownLatch implements DistributedCountDownLatch {

	/** The prefix of every latch's channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_countdownlatch__channel__";

	private static final String OPENED_MESSAGE = "0";

	private final String name;

	private final String channel;

	private final String[] keys;

	private final RedisEngine engine;

	/**
	 * @param name the latch's name and Redis key
	 * @param engine the client's engine
	 */
	public RedisCountDownLatch(String name, RedisEngine engine) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A latch name must not be null or blank");
		}
		this.name = name;
		this.channel = CHANNEL_PREFIX + "{" + name + "}";
		this.keys = new String[] { name };
		this.engine = engine;
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public boolean trySetCount(long count) {
		if (count < 0) {
			throw new IllegalArgumentException("The count must not be negative: " + count);
		}
		Long set = engine.await(engine.eval(LockScripts.LATCH_SET_COUNT, ScriptOutputType.INTEGER, keys,
				Long.toString(count), channel), "count of latch '" + name + "'");
		return set != null && set == 1L;
	}

	@Override
	public void countDown() {
		engine.await(engine.eval(LockScripts.LATCH_COUNT_DOWN, ScriptOutputType.INTEGER, keys, channel),
				"count down of latch '" + name + "'");
	}

	@Override
	public long getCount() {
		String value = engine.await(engine.commands().get(name), "count of latch '" + name + "'");
		return (value != null) ? Math.max(0, Long.parseLong(value)) : 0;
	}

	@Override
	public void await() throws InterruptedException {
		awaitOpen(BlockingWait.FOREVER);
	}

	@Override
	public boolean await(long waitTime, TimeUnit unit) throws InterruptedException {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return awaitOpen(unit.toNanos(waitTime));
	}

	@Override
	public String toString() {
		return "RedisCountDownLatch[" + name + "]";
	}

	private boolean awaitOpen(long waitNanos) throws InterruptedException {
		// Reaching zero wakes every waiter; a new count wakes none.
		return BlockingWait.await(engine, channel,
				() -> new LockWaiters(message -> OPENED_MESSAGE.equals(message) ? LockWaiters.ALL : 0), waitNanos,
				() -> (getCount() == 0) ? null : -1L, "latch '" + name + "'");
	}

}
