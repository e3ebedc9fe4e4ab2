package dev.warden.lock;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A semaphore whose permits each have an id and a lease of their own: a permit not released by
 * its holder returns to the pool when its lease runs out, so a crashed holder cannot leak it.
 * Waiters are woken by releases and by the next expiry, never by polling.
 * <p>
 * Layout: the capacity in a string at the name, the permits out in a zset
 * {@code {name}:warden_permits} (permit id to expiry, by Redis's clock), the channel
 * {@code warden_permits:{name}}.
 *
 * <pre>{@code
 * DistributedPermitExpirableSemaphore slots = warden.getPermitExpirableSemaphore("exports");
 * slots.trySetPermits(4);
 * String permit = slots.acquire(10, TimeUnit.MINUTES);
 * try { export(); } finally { slots.release(permit); }
 * }</pre>
 */
public interface DistributedPermitExpirableSemaphore {

	/** {@return the semaphore's name, which is also the Redis key of its capacity} */
	String getName();

	/**
	 * Sets the number of permits, unless the semaphore already exists.
	 * @param permits not negative
	 * @return whether it was set
	 */
	boolean trySetPermits(int permits);

	/**
	 * Takes a permit, waiting as long as it takes.
	 * @param leaseTime the permit's lease; positive
	 * @param unit the unit of {@code leaseTime}
	 * @return the permit's id, to release it with
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	String acquire(long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Takes a permit if one is available within the wait.
	 * @param waitTime not negative; 0 tries once
	 * @param leaseTime the permit's lease; positive
	 * @param unit the unit of both times
	 * @return the permit's id, or empty
	 * @throws InterruptedException when the thread is interrupted while it waits
	 */
	Optional<String> tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

	/**
	 * Takes a permit if one is available within the wait, without blocking a thread while waiting.
	 * @param waitTime not negative; 0 tries once
	 * @param leaseTime the permit's lease; positive
	 * @param unit the unit of both times
	 * @return completes with the permit's id, or empty, or fails with
	 * {@link dev.warden.RedisUnavailableException}; cancelling it stops the wait (a permit taken in
	 * the meantime is returned). It completes on a Redis I/O thread: continuations that block (on
	 * Warden, or on anything else) belong on an executor of their own
	 * ({@code thenApplyAsync(..., executor)}).
	 */
	CompletableFuture<Optional<String>> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit);

	/**
	 * Returns a permit.
	 * @param permitId the id {@code acquire} returned
	 * @throws IllegalArgumentException when no such permit is out: never taken, released already,
	 * or expired (and back in the pool)
	 */
	void release(String permitId);

	/**
	 * Returns a permit if it is still out; whether it was.
	 * @param permitId the id {@code acquire} or {@code tryAcquire} returned
	 * @return whether the permit was still out (and is now released)
	 */
	boolean tryRelease(String permitId);

	/**
	 * Returns a permit if it is still out, without blocking.
	 * @param permitId the id {@code acquire} returned
	 * @return completes with whether it was out
	 */
	CompletableFuture<Boolean> tryReleaseAsync(String permitId);

	/** {@return the permits available now (expired ones count as available)} */
	int availablePermits();

}
