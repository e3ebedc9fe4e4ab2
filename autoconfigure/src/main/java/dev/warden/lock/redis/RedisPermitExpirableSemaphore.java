package dev.warden.lock.redis;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
		String permitId = BlockingAcquisition.await(engine, new Waiter(leaseMillis(leaseTime, unit)), Acquisition.FOREVER);
		if (permitId == null) {
			throw new IllegalStateException("A wait without end ended without a permit of semaphore '" + name + "'");
		}
		return permitId;
	}

	@Override
	public Optional<String> tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		long waitNanos = waitNanos(waitTime, unit);
		return Optional.ofNullable(BlockingAcquisition.await(engine, new Waiter(leaseMillis(leaseTime, unit)), waitNanos));
	}

	@Override
	public CompletableFuture<Optional<String>> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit) {
		long waitNanos = waitNanos(waitTime, unit);
		return Acquisition.start(engine, new Waiter(leaseMillis(leaseTime, unit)), waitNanos, Optional::ofNullable);
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
		return engine.await(tryReleaseAsync(permitId), "release of semaphore '" + name + "'");
	}

	@Override
	public CompletableFuture<Boolean> tryReleaseAsync(String permitId) {
		if (permitId == null || permitId.isBlank()) {
			throw new IllegalArgumentException("A permit id must not be null or blank");
		}
		CompletableFuture<Long> released = engine.eval(LockScripts.PERMIT_RELEASE, ScriptOutputType.INTEGER,
				permitsKey, permitId, channel);
		return RedisEngine.map(released, reply -> reply != null && reply == 1L);
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

	private static long waitNanos(long waitTime, TimeUnit unit) {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return unit.toNanos(waitTime);
	}

	/** A caller waiting for a permit; the permit's id is chosen once, for every try. */
	private final class Waiter implements Contender<String> {

		private final String permitId = Long.toHexString(ThreadLocalRandom.current().nextLong())
				+ Long.toHexString(System.nanoTime());

		private final String leaseArg;

		Waiter(long leaseMillis) {
			this.leaseArg = Long.toString(leaseMillis);
		}

		@Override
		public CompletableFuture<Contender.Try<String>> tryOnce(boolean willWait) {
			CompletableFuture<List<Long>> reply = engine.eval(LockScripts.PERMIT_ACQUIRE, ScriptOutputType.MULTI, keys,
					permitId, leaseArg, channel);
			// Taken: done. Otherwise sleep until a release, or until the next permit out expires.
			return RedisEngine.map(reply, taken -> (taken.get(0) == 1L) ? Contender.Try.succeeded(permitId)
					: Contender.Try.failed(taken.get(1)));
		}

		@Override
		public String channel() {
			return channel;
		}

		@Override
		public Supplier<LockWaiters> waiters() {
			return () -> new LockWaiters(message -> LockWaiters.ALL);
		}

		@Override
		public String description() {
			return "permit of semaphore '" + name + "'";
		}

		@Override
		public CompletableFuture<?> giveBack(String permit) {
			return tryReleaseAsync(permit);
		}

	}

}
