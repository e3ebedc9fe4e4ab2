package dev.warden.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A count-down latch shared by every client of one Redis: waiters pass once the count reaches
 * zero, woken by pub/sub.
 * <p>
 * The layout is Redisson's {@code RCountDownLatch}: a string at the name holding the count, deleted
 * when it reaches zero, with {@code 0} published on
 * {@code redisson_countdownlatch__channel__{name}} then.
 */
public interface DistributedCountDownLatch {

	/** {@return the latch's name, which is also its Redis key} */
	String getName();

	/**
	 * Sets the count, unless the latch is already counting down.
	 * @param count not negative
	 * @return whether it was set
	 */
	boolean trySetCount(long count);

	/** Counts down by one; reaching zero releases every waiter. */
	void countDown();

	/**
	 * Counts down by one without blocking; reaching zero releases every waiter.
	 * @return completes when Redis has counted down
	 */
	CompletableFuture<Void> countDownAsync();

	/** {@return the remaining count; 0 when the latch is open (or was never set)} */
	long getCount();

	/**
	 * Waits until the count reaches zero.
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	void await() throws InterruptedException;

	/**
	 * Waits until the count reaches zero, or the wait is over.
	 * @param waitTime not negative
	 * @param unit the unit of {@code waitTime}
	 * @return whether the count reached zero
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	boolean await(long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Waits until the count reaches zero, or the wait is over, without blocking a thread.
	 * @param waitTime not negative; 0 checks once
	 * @param unit the unit of {@code waitTime}
	 * @return completes with whether the count reached zero, or fails with
	 * {@link dev.warden.RedisUnavailableException}; cancelling it stops the wait. It completes on a
	 * Redis I/O thread: continuations that block (on Warden, or on anything else) belong on an
	 * executor of their own ({@code thenApplyAsync(..., executor)}).
	 */
	CompletableFuture<Boolean> awaitAsync(long waitTime, TimeUnit unit);

}
