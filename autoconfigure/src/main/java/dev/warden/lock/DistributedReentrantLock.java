package dev.warden.lock;

/**
 * A reentrant lock shared by every client of one Redis, with a lease: its owner may acquire it
 * again, and holds it until it has released every hold.
 * <p>
 * Holds are counted per {@link LockOwner}; the last unlock frees the lock. Leases, the watchdog and
 * waiting are as for every {@link DistributedMutex}.
 * <p>
 * The Redis layout is Redisson's {@code RLock}: a hash at the lock's name whose fields are
 * {@code <clientId>:<n>} with the hold count, and a message {@code 0} on
 * {@code redisson_lock__channel:{name}} when the lock is released. A Warden client and a Redisson
 * client exclude each other on the same name.
 *
 * <pre>{@code
 * DistributedReentrantLock lock = warden.getLock("order:42");
 * if (lock.tryLock(2, TimeUnit.SECONDS)) {
 *     try {
 *         // exclusive across every service on this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public interface DistributedReentrantLock extends DistributedMutex {

	/** {@return how many holds the current thread has; {@code 0} when it does not hold the lock} */
	int getHoldCount();

	/**
	 * {@return how many holds {@code owner} has; {@code 0} when it does not hold the lock}
	 * @param owner the owner asked about
	 */
	int getHoldCount(LockOwner owner);

}
