package dev.warden.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/**
 * Configuration properties of Warden.
 */
@ConfigurationProperties("warden")
public class WardenProperties {

	/**
	 * Whether to configure Warden (its client, and the interception of annotated methods).
	 */
	private boolean enabled = true;

	/**
	 * Id of this client in lock owner ids, unique among live clients. A random UUID by default.
	 */
	private @Nullable String clientId;

	/**
	 * How long a blocking call waits for Redis before failing with RedisUnavailableException.
	 */
	private Duration commandTimeout = Duration.ofSeconds(10);

	private final Lock lock = new Lock();

	public boolean isEnabled() {
		return enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getClientId() {
		return clientId;
	}

	public void setClientId(@Nullable String clientId) {
		this.clientId = clientId;
	}

	public Duration getCommandTimeout() {
		return commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public Lock getLock() {
		return lock;
	}

	/**
	 * Lock properties.
	 */
	public static class Lock {

		/**
		 * The order of the @DistributedLock advice. The default puts it just outside Spring's
		 * transaction advice (whose order is the lowest precedence), so that a transaction
		 * commits before its lock is released; a lower value moves it further out.
		 */
		public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

		/**
		 * Lease of locks taken without an explicit lease, renewed by the watchdog every third of
		 * it until they are released.
		 */
		private Duration watchdogTimeout = Duration.ofSeconds(30);

		/**
		 * Prefix of the Redis key of every @DistributedLock lock.
		 */
		private String keyPrefix = "warden:lock:";

		/**
		 * How long @DistributedLock methods wait for their lock when the annotation does not say.
		 * Zero tries once.
		 */
		private Duration defaultWaitTime = Duration.ZERO;

		/**
		 * Order of the @DistributedLock advice among other advice. Must stay lower than the
		 * transaction advice's order so that the lock surrounds the transaction: the transaction
		 * commits before the lock is released.
		 */
		private int aspectOrder = DEFAULT_ASPECT_ORDER;

		public Duration getWatchdogTimeout() {
			return watchdogTimeout;
		}

		public void setWatchdogTimeout(Duration watchdogTimeout) {
			this.watchdogTimeout = watchdogTimeout;
		}

		public String getKeyPrefix() {
			return keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public Duration getDefaultWaitTime() {
			return defaultWaitTime;
		}

		public void setDefaultWaitTime(Duration defaultWaitTime) {
			this.defaultWaitTime = defaultWaitTime;
		}

		public int getAspectOrder() {
			return aspectOrder;
		}

		public void setAspectOrder(int aspectOrder) {
			this.aspectOrder = aspectOrder;
		}

	}

}
