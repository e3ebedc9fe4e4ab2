package dev.warden.lock.interceptor;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.warden.lock.DistributedMutex;
import dev.warden.lock.DistributedReadWriteLock;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedSimpleLock;
import dev.warden.lock.LockFactory;
import dev.warden.lock.LockOwner;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockFactory} whose locks live in this JVM and say what happened to them: for tests of
 * the annotation's own logic, which needs no Redis. A lock is free or held by one owner; a wait
 * never waits (the lock is taken at once or not at all). Each acquisition and release is
 * recorded, in order.
 */
final class InMemoryLocks implements LockFactory {

	private final Map<String, String> holders = new HashMap<>();

	private final List<String> events = new ArrayList<>();

	private final AtomicLong tokens = new AtomicLong();

	private final AtomicLong owners = new AtomicLong();

	private final LockOwner threadOwner = new LockOwner("memory:thread");

	/** What happened, in order: {@code "lock <name> <owner>"}, {@code "unlock <name> <owner>"}. */
	synchronized List<String> events() {
		return List.copyOf(events);
	}

	/** Makes a lock busy, held by someone else. */
	synchronized void holdElsewhere(String name) {
		holders.put(name, "elsewhere:1");
	}

	/** Takes a lock from its holder, as an expired lease or a force unlock would. */
	synchronized void lose(String name) {
		holders.remove(name);
	}

	/** Who holds the lock, or {@code null}. */
	synchronized @Nullable String holder(String name) {
		return holders.get(name);
	}

	@Override
	public DistributedReentrantLock getLock(String name) {
		return lock(name, "reentrant", DistributedReentrantLock.class);
	}

	@Override
	public DistributedReentrantLock getFairLock(String name) {
		return lock(name, "fair", DistributedReentrantLock.class);
	}

	@Override
	public DistributedSimpleLock getSimpleLock(String name) {
		return lock(name, "simple", DistributedSimpleLock.class);
	}

	@Override
	public DistributedReadWriteLock getReadWriteLock(String name) {
		throw new UnsupportedOperationException("read-write locks");
	}

	@Override
	public LockOwner currentThreadOwner() {
		return threadOwner;
	}

	@Override
	public LockOwner newOwner() {
		return new LockOwner("memory:" + owners.incrementAndGet());
	}

	private synchronized @Nullable Long tryLock(String name, String kind, LockOwner owner) {
		String holder = holders.get(name);
		if (holder != null && !holder.equals(owner.id())) {
			return null;
		}
		holders.put(name, owner.id());
		events.add("lock " + name + " " + kind + " " + owner.id());
		return tokens.incrementAndGet();
	}

	private synchronized void unlock(String name, LockOwner owner) {
		if (!owner.id().equals(holders.get(name))) {
			throw new IllegalMonitorStateException("'" + name + "' is not held by " + owner.id());
		}
		holders.remove(name);
		events.add("unlock " + name + " " + owner.id());
	}

	/** Only the methods the annotation machinery calls are there; the others fail. */
	private <L extends DistributedMutex> L lock(String name, String kind, Class<L> type) {
		return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> {
					switch (method.getName()) {
						case "getName", "toString" -> {
							return name;
						}
						case "tryLockWithToken" -> {
							Long token = tryLock(name, kind, (LockOwner) args[0]);
							return (token != null) ? OptionalLong.of(token) : OptionalLong.empty();
						}
						case "tryLock" -> {
							return tryLock(name, kind, (LockOwner) args[0]) != null;
						}
						case "tryLockAsync" -> {
							return CompletableFuture.completedFuture(tryLock(name, kind, (LockOwner) args[0]) != null);
						}
						case "unlock" -> {
							unlock(name, (LockOwner) args[0]);
							return null;
						}
						case "unlockAsync" -> {
							try {
								unlock(name, (LockOwner) args[0]);
								return CompletableFuture.completedFuture(null);
							}
							catch (IllegalMonitorStateException ex) {
								return CompletableFuture.failedFuture(ex);
							}
						}
						case "hashCode" -> {
							return System.identityHashCode(proxy);
						}
						case "equals" -> {
							return proxy == args[0];
						}
						default -> throw new UnsupportedOperationException(method.getName());
					}
				}));
	}

}
