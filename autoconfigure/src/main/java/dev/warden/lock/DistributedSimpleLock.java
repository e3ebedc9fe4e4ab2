package dev.warden.lock;

/**
 * The plain mutex: one Redis string per lock, taken with one script call and released with a
 * compare-and-delete, and not reentrant.
 * <p>
 * The key is the lock's name and its value the holder's owner id, with the lease as its expiry; a
 * release deletes it only when the releasing owner holds it, and publishes {@code 0} on
 * {@code redisson_lock__channel:{name}} so that waiters try again at once. Leases, the watchdog,
 * fencing tokens, asynchronous waits and {@code @DistributedLock(type = LockType.SIMPLE)} work as
 * for the {@link DistributedReentrantLock}; each acquisition and each release is one round trip.
 * <p>
 * <b>Not reentrant.</b> An acquisition by the owner that already holds the lock (the same thread,
 * or the same {@link LockOwner}) fails at once with {@link IllegalStateException}, whichever method
 * makes it ({@code tryLock} too): it would otherwise wait for itself until its own lease ran out.
 * Use the reentrant lock when a holder may call code that locks the same name again.
 * <p>
 * A name is one kind of lock: a simple lock and a reentrant lock of the same name refuse each other
 * with a {@link dev.warden.WardenException} naming the clash (Redis's {@code WRONGTYPE}).
 */
public interface DistributedSimpleLock extends DistributedMutex {

}
