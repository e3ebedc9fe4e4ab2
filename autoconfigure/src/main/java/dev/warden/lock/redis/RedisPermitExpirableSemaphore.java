package dev.warden.lock.redis;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.LockArguments;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

import static dev.warden.lock.LockArguments.waitNanos;

/**
 * {@link DistributedPermitExpirableSemaphore} on Redis.
 */
public final class RedisPermitExpirableSemaphore extends ChannelSynchronizer implements DistributedPermitExpirableSemaphore {

	/** The prefix of every such semaphore's channel. */
	public static final String CHANNEL_PREFIX = "warden_permits";

	private final String[] keys;

	private final String[] permitsKey;

	/**
	 * @param name the semaphore's name and the key of its capacity
	 * @param engine the client's engine
	 */
	public RedisPermitExpirableSemaphore(String name, RedisEngine engine) {
		super(LockArguments.requireName(name, "semaphore"), CHANNEL_PREFIX + ":{" + name + "}", engine);
		String permits = RedisEngine.sibling(name, ":warden_permits");
		this.keys = new String[] { name, permits };
		this.permitsKey = new String[] { permits };
	}

	@Override
	public boolean trySetPermits(int permits) {
		String capacity = Integer.toString(LockArguments.requireCapacity(permits));
		// A script, as the plain semaphore's: one whose connection closes before its reply fails
		// rather than being sent again, which would answer that the permits were set already.
		Long set = engine.await(engine.eval(LockScripts.SEMAPHORE_SET_PERMITS, ScriptOutputType.INTEGER,
				new String[] { name }, capacity, channel), "permits of semaphore '" + name + "'");
		return set != null && set == 1L;
	}

	@Override
	public String acquire(long leaseTime, TimeUnit unit) throws InterruptedException {
		String permitId = BlockingAcquisition.await(engine, new Waiter(leaseTime, unit), Acquisition.FOREVER);
		if (permitId == null) {
			throw new IllegalStateException("A wait without end ended without a permit of semaphore '" + name + "'");
		}
		return permitId;
	}

	@Override
	public Optional<String> tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		long waitNanos = waitNanos(waitTime, unit);
		return Optional.ofNullable(BlockingAcquisition.await(engine, new Waiter(leaseTime, unit), waitNanos));
	}

	@Override
	public CompletableFuture<Optional<String>> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit) {
		long waitNanos = waitNanos(waitTime, unit);
		return Acquisition.start(engine, new Waiter(leaseTime, unit), waitNanos, Optional::ofNullable);
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

	/** A caller waiting for a permit; the permit's id is chosen once, for every try. */
	private final class Waiter implements Contender<String> {

		private final String permitId = Long.toHexString(ThreadLocalRandom.current().nextLong())
				+ Long.toHexString(System.nanoTime());

		private final String leaseArg;

		Waiter(long leaseTime, TimeUnit unit) {
			this.leaseArg = Long.toString(LockArguments.leaseMillis(leaseTime, unit, "A permit's lease"));
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
