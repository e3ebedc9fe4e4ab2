package dev.warden.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A counting semaphore shared by every client of one Redis. Permits are not owned: any client may
 * release, as with {@link java.util.concurrent.Semaphore}. Waiters are woken by pub/sub when
 * permits are released, never by polling.
 * <p>
 * The layout is Redisson's {@code RSemaphore}: a string at the name holding the available permits,
 * and the count published on {@code redisson_sc:{name}} at each release.
 */
public interface DistributedSemaphore {

	/** {@return the semaphore's name, which is also its Redis key} */
	String getName();

	/**
	 * Sets the number of permits, unless the semaphore already exists.
	 * @param permits not negative
	 * @return whether it was set
	 */
	boolean trySetPermits(int permits);

	/**
	 * Takes one permit, waiting as long as it takes.
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	void acquire() throws InterruptedException;

	/**
	 * Takes {@code permits} permits at once, waiting as long as it takes.
	 * @param permits at least 1
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	void acquire(int permits) throws InterruptedException;

	/**
	 * Takes one permit if one is available now.
	 * @return whether it was taken
	 */
	boolean tryAcquire();

	/**
	 * Takes {@code permits} permits at once if they are available within the wait.
	 * @param permits at least 1
	 * @param waitTime not negative; 0 tries once
	 * @param unit the unit of {@code waitTime}
	 * @return whether they were taken
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	boolean tryAcquire(int permits, long waitTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Takes {@code permits} permits at once if they are available within the wait, without
	 * blocking a thread while waiting.
	 * @param permits at least 1
	 * @param waitTime not negative; 0 tries once
	 * @param unit the unit of {@code waitTime}
	 * @return completes with whether they were taken, or fails with
	 * {@link dev.warden.RedisUnavailableException}; cancelling it stops the wait (permits taken in
	 * the meantime are returned). It completes on a Redis I/O thread: continuations that block (on
	 * Warden, or on anything else) belong on an executor of their own
	 * ({@code thenApplyAsync(..., executor)}).
	 */
	CompletableFuture<Boolean> tryAcquireAsync(int permits, long waitTime, TimeUnit unit);

	/** Returns one permit. */
	void release();

	/**
	 * Returns {@code permits} permits and wakes waiters.
	 * @param permits at least 1
	 */
	void release(int permits);

	/**
	 * Returns {@code permits} permits and wakes waiters, without blocking.
	 * @param permits at least 1
	 * @return completes when Redis has the permits back
	 */
	CompletableFuture<Void> releaseAsync(int permits);

	/** {@return the permits available now} */
	int availablePermits();

}
