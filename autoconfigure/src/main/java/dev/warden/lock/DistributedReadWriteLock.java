package dev.warden.lock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock shared by every client of one Redis: many readers, or one writer. Both sides
 * are reentrant {@link DistributedReentrantLock}s with leases and the watchdog; the owner of the write lock
 * may also take the read lock (and keeps it after releasing the write lock), but a reader cannot
 * upgrade to writing.
 * <p>
 * The layout is Redisson's {@code RReadWriteLock}: a hash at the name with a {@code mode} field,
 * the readers' owner ids and the writer's {@code <owner id>:write} with their hold counts, one
 * {@code {name}:<owner id>:rwlock_timeout:<n>} key per read hold for its lease, and the channel
 * {@code redisson_rwlock:{name}}.
 *
 * <pre>{@code
 * DistributedReadWriteLock prices = warden.getReadWriteLock("prices");
 * prices.readLock().lock();     // any number of readers at once
 * prices.writeLock().lock();    // one writer, no readers
 * }</pre>
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

	/** {@return the lock's name, which is also its Redis key} */
	String getName();

	@Override
	DistributedReentrantLock readLock();

	@Override
	DistributedReentrantLock writeLock();

}
