package dev.warden.lock.redis;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

/**
 * {@link DistributedPermitExpirableSemaphore} on Redis.
 */
public final class RedisPermitExpirableSemaphore implements DistributedPermitExpirableSemaphore {

	/** The prefix of every such semaphore's channel. */
	public static final String CHANNEL_PREFIX = "warden_permits";

	private final String name;

	private final String channel;

	private final String[] keys;

	private final String[] permitsKey;

	private final RedisEngine engine;

	/**
	 * @param name the semaphore's name and the key of its capacity
	 * @param engine the client's engine
	 */
	public RedisPermitExpirableSemaphore(String name, RedisEngine engine) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A semaphore name must not be null or blank");
		}
		this.name = name;
		this.channel = CHANNEL_PREFIX + ":{" + name + "}";
		String permits = RedisEngine.sibling(name, ":warden_permits");
		this.keys = new String[] { name, permits };
		this.permitsKey = new String[] { permits };
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
		Boolean set = engine.await(engine.commands().setnx(name, Integer.toString(permits)),
				"permits of semaphore '" + name + "'");
		if (Boolean.TRUE.equals(set)) {
			engine.commands().publish(channel, Integer.toString(permits));
			return true;
		}
		return false;
	}

	@Override
	public String acquire(long leaseTime, TimeUnit unit) throws InterruptedException {
		return acquire(BlockingWait.FOREVER, leaseMillis(leaseTime, unit)).orElseThrow();
	}

	@Override
	public Optional<String> tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return acquire(unit.toNanos(waitTime), leaseMillis(leaseTime, unit));
	}

	private Optional<String> acquire(long waitNanos, long leaseMillis) throws InterruptedException {
		String permitId = Long.toHexString(ThreadLocalRandom.current().nextLong()) + Long.toHexString(System.nanoTime());
		boolean acquired = BlockingWait.await(engine, channel, () -> new LockWaiters(message -> LockWaiters.ALL),
				waitNanos, () -> {
					List<Long> reply = engine.await(engine.eval(LockScripts.PERMIT_ACQUIRE, ScriptOutputType.MULTI, keys,
							permitId, Long.toString(leaseMillis), channel), "permit of semaphore '" + name + "'");
					// Taken: done. Otherwise sleep until a release, or until the next permit out expires.
					return (reply.get(0) == 1L) ? null : reply.get(1);
				}, "semaphore '" + name + "'");
		return acquired ? Optional.of(permitId) : Optional.empty();
	}

	@Override
	public void release(String permitId) {
		if (!tryRelease(permitId)) {
			throw new IllegalArgumentException("Permit '" + permitId + "' of semaphore '" + name
					+ "' is not out: never taken, released already, or expired");
		}
	}

	@Override
	public boolean tryRelease(String permitId) {
		if (permitId == null || permitId.isBlank()) {
			throw new IllegalArgumentException("A permit id must not be null or blank");
		}
		Long released = engine.await(engine.eval(LockScripts.PERMIT_RELEASE, ScriptOutputType.INTEGER, permitsKey,
				permitId, channel), "release of semaphore '" + name + "'");
		return released != null && released == 1L;
	}

	@Override
	public int availablePermits() {
		Long available = engine.await(engine.eval(LockScripts.PERMIT_AVAILABLE, ScriptOutputType.INTEGER, keys),
				"permits of semaphore '" + name + "'");
		return (available != null) ? available.intValue() : 0;
	}

	private static long leaseMillis(long leaseTime, TimeUnit unit) {
		if (leaseTime <= 0) {
			throw new IllegalArgumentException("A permit's lease must be positive: " + leaseTime + " " + unit);
		}
		return Math.max(1, unit.toMillis(leaseTime));
	}

}
