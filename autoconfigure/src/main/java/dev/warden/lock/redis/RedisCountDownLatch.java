package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.lock.LockArguments;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

import static dev.warden.lock.LockArguments.waitNanos;

/**
 * {@link DistributedCountDownLatch} on Redis, with Redisson's {@code RCountDownLatch} layout.
 */
public final class RedisCountDownLatch extends ChannelSynchronizer implements DistributedCountDownLatch {

	/** The prefix of every latch's channel, Redisson's. */
	public static final String CHANNEL_PREFIX = "redisson_countdownlatch__channel__";

	private static final String OPENED_MESSAGE = "0";

	private final String[] keys;

	private final Waiter waiter;

	/**
	 * @param name the latch's name and Redis key
	 * @param engine the client's engine
	 */
	public RedisCountDownLatch(String name, RedisEngine engine) {
		super(LockArguments.requireName(name, "latch"), CHANNEL_PREFIX + "{" + name + "}", engine);
		this.keys = new String[] { name };
		this.waiter = new Waiter();
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
		engine.await(countDownAsync(), "count down of latch '" + name + "'");
	}

	@Override
	public CompletableFuture<Void> countDownAsync() {
		CompletableFuture<Long> counted = engine.eval(LockScripts.LATCH_COUNT_DOWN, ScriptOutputType.INTEGER, keys,
				channel);
		return RedisEngine.map(counted, reply -> null);
	}

	@Override
	public long getCount() {
		String value = engine.await(engine.commands(name).get(name), "count of latch '" + name + "'");
		return (value != null) ? Math.max(0, Long.parseLong(value)) : 0;
	}

	@Override
	public void await() throws InterruptedException {
		BlockingAcquisition.await(engine, waiter, Acquisition.FOREVER);
	}

	@Override
	public boolean await(long waitTime, TimeUnit unit) throws InterruptedException {
		return BlockingAcquisition.await(engine, waiter, waitNanos(waitTime, unit)) != null;
	}

	@Override
	public CompletableFuture<Boolean> awaitAsync(long waitTime, TimeUnit unit) {
		return Acquisition.start(engine, waiter, waitNanos(waitTime, unit), open -> open != null);
	}

	/** A caller waiting for the latch to open; it holds nothing, so one serves every caller. */
	private final class Waiter implements Contender<Boolean> {

		@Override
		public CompletableFuture<Contender.Try<Boolean>> tryOnce(boolean willWait) {
			return RedisEngine.map(engine.commands(name).get(name).toCompletableFuture(),
					count -> (count == null || Long.parseLong(count) <= 0) ? Contender.Try.succeeded(Boolean.TRUE)
							: Contender.Try.failed(-1));
		}

		@Override
		public String channel() {
			return channel;
		}

		@Override
		public Supplier<LockWaiters> waiters() {
			// Reaching zero wakes every waiter; a new count wakes none.
			return () -> new LockWaiters(message -> OPENED_MESSAGE.equals(message) ? LockWaiters.ALL : 0);
		}

		@Override
		public String description() {
			return "wait for latch '" + name + "'";
		}

		@Override
		public CompletableFuture<?> giveBack(Boolean open) {
			return Contender.DONE;
		}

	}

}
