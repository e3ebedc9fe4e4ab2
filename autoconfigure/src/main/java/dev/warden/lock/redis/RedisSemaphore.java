package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.warden.lock.DistributedSemaphore;
import dev.warden.lock.LockArguments;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

import static dev.warden.lock.LockArguments.waitNanos;

/**
 * {@link DistributedSemaphore} on Redis, with Redisson's {@code RSemaphore} layout.
 */
public final class RedisSemaphore extends ChannelSynchronizer implements DistributedSemaphore {

	/** The prefix of every semaphore's channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_sc";

	private final String[] keys;

	/**
	 * @param name the semaphore's name and Redis key
	 * @param engine the client's engine
	 */
	public RedisSemaphore(String name, RedisEngine engine) {
		super(LockArguments.requireName(name, "semaphore"), CHANNEL_PREFIX + ":{" + name + "}", engine);
		this.keys = new String[] { name };
	}

	@Override
	public boolean trySetPermits(int permits) {
		String capacity = Integer.toString(LockArguments.requireCapacity(permits));
		Long set = engine.await(engine.eval(LockScripts.SEMAPHORE_SET_PERMITS, ScriptOutputType.INTEGER, keys, capacity,
				channel), "permits of semaphore '" + name + "'");
		return set != null && set == 1L;
	}

	@Override
	public void acquire() throws InterruptedException {
		acquire(1);
	}

	@Override
	public void acquire(int permits) throws InterruptedException {
		BlockingAcquisition.await(engine, new Waiter(requirePositive(permits)), Acquisition.FOREVER);
	}

	@Override
	public boolean tryAcquire() {
		return BlockingAcquisition.awaitUninterruptibly(engine, new Waiter(1), 0) != null;
	}

	@Override
	public boolean tryAcquire(int permits, long waitTime, TimeUnit unit) throws InterruptedException {
		return BlockingAcquisition.await(engine, new Waiter(requirePositive(permits)), waitNanos(waitTime, unit)) != null;
	}

	@Override
	public CompletableFuture<Boolean> tryAcquireAsync(int permits, long waitTime, TimeUnit unit) {
		Waiter waiter = new Waiter(requirePositive(permits));
		return Acquisition.start(engine, waiter, waitNanos(waitTime, unit), taken -> taken != null);
	}

	@Override
	public void release() {
		release(1);
	}

	@Override
	public void release(int permits) {
		engine.await(releaseAsync(permits), "release of semaphore '" + name + "'");
	}

	@Override
	public CompletableFuture<Void> releaseAsync(int permits) {
		CompletableFuture<Long> released = engine.eval(LockScripts.SEMAPHORE_RELEASE, ScriptOutputType.INTEGER, keys,
				Integer.toString(requirePositive(permits)), channel);
		return RedisEngine.map(released, reply -> null);
	}

	@Override
	public int availablePermits() {
		String value = engine.await(engine.commands(name).get(name), "permits of semaphore '" + name + "'");
		return (value != null) ? Integer.parseInt(value) : 0;
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

	/** A caller waiting for permits. */
	private final class Waiter implements Contender<Boolean> {

		private final int permits;

		Waiter(int permits) {
			this.permits = permits;
		}

		@Override
		public CompletableFuture<Contender.Try<Boolean>> tryOnce(boolean willWait) {
			CompletableFuture<Long> reply = engine.eval(LockScripts.SEMAPHORE_ACQUIRE, ScriptOutputType.INTEGER, keys,
					Integer.toString(permits));
			// Taken (-1): done. Otherwise sleep until a release is announced.
			return RedisEngine.map(reply, available -> (available != null && available == -1L)
					? Contender.Try.succeeded(Boolean.TRUE) : Contender.Try.failed(-1));
		}

		@Override
		public String channel() {
			return channel;
		}

		@Override
		public Supplier<LockWaiters> waiters() {
			// A release announces how many permits are available: wake that many waiters.
			return () -> new LockWaiters(RedisSemaphore::permitsIn);
		}

		@Override
		public String description() {
			return "acquire of semaphore '" + name + "'";
		}

		@Override
		public CompletableFuture<?> giveBack(Boolean taken) {
			return releaseAsync(permits);
		}

	}

}
