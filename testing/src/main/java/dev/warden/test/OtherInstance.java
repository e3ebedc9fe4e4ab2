package dev.warden.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.autoconfigure.WardenProperties;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Another instance of the application, as Warden sees it: a Warden client of its own on the same
 * Redis. A test holds a lock through it to drive the branch a locked method takes when another
 * instance has the lock ({@code THROW}, {@code SKIP}, {@code FALLBACK}), on the real lock.
 * <pre class="code">
 * try (OtherInstance other = OtherInstance.of(context);
 *         OtherInstance.Hold hold = other.holdAnnotated("stock:apple")) {
 *     assertThatExceptionOfType(LockAcquisitionException.class)
 *         .isThrownBy(() -&gt; orders.purchase("apple", 1));
 * }
 * </pre>
 * {@link #holdAnnotated} takes a lock as {@code @DistributedLock} names it: its {@code name}, a colon,
 * and the value of its {@code key} ({@code "stock:apple"} for {@code name = "stock", key = "#sku"} and
 * {@code "apple"}), under the application's {@code warden.lock.key-prefix}; {@link #hold} takes the
 * lock of a name given to {@code Warden.getLock}.
 */
public final class OtherInstance implements AutoCloseable {

	private final RedisClient client;

	private final Warden warden;

	private final String keyPrefix;

	private final List<Hold> holds = new ArrayList<>();

	private OtherInstance(RedisClient client, WardenProperties properties) {
		this.client = client;
		this.keyPrefix = properties.lockKeyPrefix();
		// Its tasks see the time the test clock moves to, as the application's do, in its namespace.
		this.warden = Warden.builder(client)
			.testClock(true)
			.namespace(properties.getNamespace())
			.lockNamePrefix(properties.getLock().getNamePrefix())
			.build();
	}

	/**
	 * @param context a test's application context
	 * @return another instance of that application: on its Redis ({@code spring.data.redis.host} and
	 * {@code port}), with its {@code warden.namespace}, {@code warden.lock.key-prefix} and
	 * {@code warden.lock.name-prefix}
	 */
	public static OtherInstance of(ApplicationContext context) {
		Environment environment = context.getEnvironment();
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		return new OtherInstance(RedisClient.create(RedisURI.create(host, port)),
				WardenTestConfiguration.properties(environment));
	}

	/**
	 * @param redis the tests' Redis
	 * @return another instance on it, with the default {@code warden.*} settings
	 */
	public static OtherInstance on(TestRedis redis) {
		return new OtherInstance(RedisClient.create(RedisURI.create(redis.host(), redis.port())),
				new WardenProperties());
	}

	/**
	 * Takes the lock of a {@code @DistributedLock} method for these arguments, as {@link #hold} does.
	 * @param nameAndKey the annotation's {@code name}, a colon, and its key's value: {@code "stock:apple"}
	 * @return the hold
	 */
	public Hold holdAnnotated(String nameAndKey) {
		return hold(warden.unprefixedLocks().getLock(keyPrefix + nameAndKey));
	}

	/**
	 * Takes the lock of that name ({@code Warden.getLock(lockName)}) as this other instance, waiting at most 10 s for it, and holds it (renewed by the
	 * watchdog) until the hold or this instance is closed.
	 * @param lockName the lock's name
	 * @return the hold
	 * @throws IllegalStateException when the lock is not free within 10 s
	 */
	public Hold hold(String lockName) {
		return hold(warden.getLock(lockName));
	}

	private Hold hold(DistributedReentrantLock lock) {
		String lockName = lock.getName();
		LockOwner owner = warden.newOwner();
		boolean acquired;
		try {
			acquired = lock.tryLock(owner, 10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while taking lock '" + lockName + "'", ex);
		}
		if (!acquired) {
			throw new IllegalStateException("Lock '" + lockName + "' was not free within 10 s");
		}
		Hold hold = new Hold(lock, owner);
		synchronized (holds) {
			holds.add(hold);
		}
		return hold;
	}

	/** {@return the other instance's Warden client, for anything else it should do} */
	public Warden warden() {
		return warden;
	}

	/** Releases what it holds and disconnects. */
	@Override
	public void close() {
		List<Hold> held;
		synchronized (holds) {
			held = List.copyOf(holds);
		}
		held.forEach(Hold::close);
		warden.close();
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	/** A lock the other instance holds. */
	public static final class Hold implements AutoCloseable {

		private final DistributedReentrantLock lock;

		private final LockOwner owner;

		private boolean released;

		private Hold(DistributedReentrantLock lock, LockOwner owner) {
			this.lock = lock;
			this.owner = owner;
		}

		/** {@return whether the other instance still holds it} */
		public boolean isHeld() {
			return lock.isHeldBy(owner);
		}

		/** Releases it, once. */
		@Override
		public synchronized void close() {
			if (!released) {
				released = true;
				if (lock.isHeldBy(owner)) {
					lock.unlock(owner);
				}
			}
		}

	}

}
