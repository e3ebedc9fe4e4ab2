package dev.warden.lock;

import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import static dev.warden.lock.LockArguments.waitNanos;

/**
 * {@link DistributedMultiLock} over any {@link DistributedMutex}s.
 */
public final class MultiLock implements DistributedMultiLock {

	private static final long WATCHDOG = -1;

	private final List<DistributedMutex> locks;

	private final Supplier<LockOwner> currentThreadOwner;

	/**
	 * @param locks the locks; at least one, with distinct names
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public MultiLock(List<? extends DistributedMutex> locks, Supplier<LockOwner> currentThreadOwner) {
		if (locks == null || locks.isEmpty()) {
			throw new IllegalArgumentException("A multi-lock needs at least one lock");
		}
		HashSet<String> names = new HashSet<>();
		for (DistributedMutex lock : locks) {
			if (lock == null || !names.add(lock.getName())) {
				throw new IllegalArgumentException("A multi-lock's locks must be distinct and not null: " + locks);
			}
		}
		this.locks = List.copyOf(locks.stream().sorted(Comparator.comparing(DistributedMutex::getName)).toList());
		this.currentThreadOwner = currentThreadOwner;
	}

	@Override
	public List<DistributedMutex> getLocks() {
		return locks;
	}

	@Override
	public void lock() {
		LockOwner owner = currentThreadOwner.get();
		Uninterruptibly.await(() -> acquire(owner, Long.MAX_VALUE, WATCHDOG, false));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(currentThreadOwner.get(), Long.MAX_VALUE, WATCHDOG, false);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(currentThreadOwner.get(), 0, WATCHDOG, false) != null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
		return tryLock(currentThreadOwner.get(), waitTime, unit);
	}

	@Override
	public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		return tryLock(currentThreadOwner.get(), waitTime, leaseTime, unit);
	}

	@Override
	public boolean tryLock(LockOwner owner, long waitTime, TimeUnit unit) throws InterruptedException {
		return acquire(owner, waitNanos(waitTime, unit), WATCHDOG, false) != null;
	}

	@Override
	public boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException {
		return acquire(owner, waitNanos(waitTime, unit), leaseMillis(leaseTime, unit), false) != null;
	}

	@Override
	public @Nullable Map<String, Long> tryLockWithTokens(LockOwner owner, long waitTime, TimeUnit unit)
			throws InterruptedException {
		return acquire(owner, waitNanos(waitTime, unit), WATCHDOG, true);
	}

	@Override
	public @Nullable Map<String, Long> tryLockWithTokens(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit)
			throws InterruptedException {
		return acquire(owner, waitNanos(waitTime, unit), leaseMillis(leaseTime, unit), true);
	}

	@Override
	public void unlock() {
		unlock(currentThreadOwner.get());
	}

	@Override
	public void unlock(LockOwner owner) {
		RuntimeException first = null;
		for (int i = locks.size() - 1; i >= 0; i--) {
			try {
				locks.get(i).unlock(owner);
			}
			catch (RuntimeException ex) {
				if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (first != null) {
			throw first;
		}
	}

	/**
	 * Not supported: a condition cannot span several locks in several processes.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public java.util.concurrent.locks.Condition newCondition() {
		throw new UnsupportedOperationException("Multi-locks do not support conditions");
	}

	@Override
	public String toString() {
		return "MultiLock" + locks.stream().map(DistributedMutex::getName).toList();
	}

	/**
	 * Acquires every lock in order within one wait, releasing those taken when one fails.
	 * @return the locks' names and tokens (0 each without tokens), or {@code null} when not all were
	 * acquired
	 */
	private @Nullable Map<String, Long> acquire(LockOwner owner, long waitNanos, long leaseMillis, boolean withTokens)
			throws InterruptedException {
		long deadline = (waitNanos == Long.MAX_VALUE) ? Long.MAX_VALUE : System.nanoTime() + waitNanos;
		Map<String, Long> tokens = new LinkedHashMap<>();
		for (int i = 0; i < locks.size(); i++) {
			long remaining = (deadline == Long.MAX_VALUE) ? Long.MAX_VALUE : Math.max(0, deadline - System.nanoTime());
			OptionalLong token;
			try {
				token = tryLock(locks.get(i), owner, remaining, leaseMillis, withTokens);
			}
			catch (InterruptedException | RuntimeException ex) {
				releaseFirst(owner, i);
				throw ex;
			}
			if (token.isEmpty()) {
				releaseFirst(owner, i);
				return null;
			}
			tokens.put(locks.get(i).getName(), token.getAsLong());
		}
		return tokens;
	}

	/** One lock's acquisition: its token (0 when none is taken), or empty when not acquired. */
	private static OptionalLong tryLock(DistributedMutex lock, LockOwner owner, long waitNanos, long leaseMillis,
			boolean withToken) throws InterruptedException {
		long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		if (withToken) {
			return (leaseMillis == WATCHDOG) ? lock.tryLockWithToken(owner, waitNanos, TimeUnit.NANOSECONDS)
					: lock.tryLockWithToken(owner, waitNanos, leaseNanos, TimeUnit.NANOSECONDS);
		}
		boolean acquired = (leaseMillis == WATCHDOG) ? lock.tryLock(owner, waitNanos, TimeUnit.NANOSECONDS)
				: lock.tryLock(owner, waitNanos, leaseNanos, TimeUnit.NANOSECONDS);
		return acquired ? OptionalLong.of(0) : OptionalLong.empty();
	}

	private void releaseFirst(LockOwner owner, int count) {
		for (int i = count - 1; i >= 0; i--) {
			try {
				locks.get(i).unlock(owner);
			}
			catch (RuntimeException ex) {
				// Rolling back: a hold that cannot be released expires with its lease.
			}
		}
	}

	private static long leaseMillis(long leaseTime, TimeUnit unit) {
		return LockArguments.leaseMillis(leaseTime, unit, "The lease time");
	}

}
