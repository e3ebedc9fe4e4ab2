package dev.warden;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Every default of a Warden client and the range of every option, in one place: the
 * {@link Warden.Builder}, the {@code warden.*} configuration properties and
 * {@link dev.warden.task.ConsumerOptions#DEFAULTS} all read them from here. Each check names the
 * option as the caller knows it (a builder method's subject, or a property's name), so an invalid
 * value fails saying which one it was.
 */
public final class WardenDefaults {

	/** How long a blocking call waits for Redis before it fails. */
	public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	/** The most command connections a client may open. */
	public static final int MAX_CONNECTIONS = 16;

	/** The most command connections a client opens by default, whatever the number of cores. */
	public static final int MAX_DEFAULT_CONNECTIONS = 4;

	/**
	 * How many command connections a client opens on a standalone Redis (Sentinel's included) when
	 * none is configured: one per processor the JVM has, at least one and at most
	 * {@value #MAX_DEFAULT_CONNECTIONS}. A connection is served by one I/O thread of the Lettuce
	 * client's resources (which has one per processor, at least two), so more connections than
	 * processors would only share threads.
	 * @param processors the JVM's available processors
	 * @return the number of connections
	 */
	public static int connections(int processors) {
		return Math.max(1, Math.min(MAX_DEFAULT_CONNECTIONS, processors));
	}

	/**
	 * Checks a number of command connections.
	 * @param option the option's name as the caller knows it
	 * @param connections the number
	 * @return the number
	 * @throws IllegalArgumentException when it is below 1 or above {@value #MAX_CONNECTIONS}
	 */
	public static int requireConnections(String option, int connections) {
		if (connections < 1 || connections > MAX_CONNECTIONS) {
			throw new IllegalArgumentException(option + " must be from 1 to " + MAX_CONNECTIONS + ", not " + connections);
		}
		return connections;
	}

	/** The lease of locks acquired without one, renewed every third of it. */
	public static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

	/** The shortest watchdog timeout: a third of it must still be a whole millisecond. */
	public static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofMillis(3);

	/**
	 * The longest lease of a lock or permit, the watchdog timeout included: a year, far beyond any
	 * sensible hold, and far inside what Redis accepts as an expiry.
	 */
	public static final Duration MAX_LEASE = Duration.ofDays(365);

	/** How long a fair lock's waiter keeps its place once its turn could have come. */
	public static final Duration FAIR_LOCK_WAITER_TIMEOUT = Duration.ofMinutes(5);

	/** How long the fail-over check waits for replicas to acknowledge an acquisition or a schedule. */
	public static final Duration REPLICA_SYNC_TIMEOUT = Duration.ofSeconds(1);

	/** How long a RedLock attempt waits for one node before counting it as refused. */
	public static final Duration REDLOCK_NODE_TIMEOUT = Duration.ofMillis(200);

	/** How many task handlers run at once on one client, across its queues. */
	public static final int TASK_CONCURRENCY = 8;

	/** Deliveries of a task before it becomes a dead letter. */
	public static final int TASK_MAX_ATTEMPTS = 5;

	/** The wait before a failed task's second attempt, doubled for each further one. */
	public static final Duration TASK_BACKOFF = Duration.ofSeconds(10);

	/** The longest wait between two attempts of a failed task. */
	public static final Duration TASK_MAX_BACKOFF = Duration.ofMinutes(10);

	/** How long a delivered task stays invisible to other consumers. */
	public static final Duration TASK_VISIBILITY_TIMEOUT = Duration.ofMinutes(5);

	/** The longest a consumer sleeps without looking at its queue. */
	public static final Duration TASK_SWEEP_INTERVAL = Duration.ofSeconds(30);

	/** How long before its due time a consumer may claim a task, with the tasks it claims anyway. */
	public static final Duration TASK_CLAIM_AHEAD = Duration.ofMillis(5);

	/**
	 * How long a task written by a later version than an instance reads may be left in its queue
	 * before it becomes a dead letter.
	 */
	public static final Duration TASK_NEWER_FORMAT_GRACE = Duration.ofHours(1);

	/** How late a recurring job's occurrence may start before its misfire policy applies. */
	public static final Duration RECURRING_MISFIRE_THRESHOLD = Duration.ofSeconds(10);

	/** The widest claim-ahead window. */
	public static final Duration MAX_TASK_CLAIM_AHEAD = Duration.ofSeconds(1);

	/** How long stopping waits for running task handlers. */
	public static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(30);

	/** The largest payload a task may be scheduled with, in UTF-8 bytes: 1 MiB. */
	public static final int TASK_MAX_PAYLOAD_BYTES = 1024 * 1024;

	/** The largest payload limit: Redis's own default limit on one value (proto-max-bulk-len). */
	public static final int MAX_TASK_PAYLOAD_BYTES = 512 * 1024 * 1024;

	private WardenDefaults() {
	}

	/** How long queue gauges reuse a queue's counts before reading them again. */
	public static final Duration METRICS_QUEUE_REFRESH = Duration.ofSeconds(10);

	/**
	 * How often a client announces its version and stored formats to the other instances on its
	 * Redis; it counts as live for three intervals after each announcement.
	 */
	public static final Duration FLEET_ANNOUNCE_INTERVAL = Duration.ofSeconds(10);

	/** The longest announce interval. */
	public static final Duration MAX_FLEET_ANNOUNCE_INTERVAL = Duration.ofHours(1);

	/**
	 * Checks an announce interval: positive, at most {@link #MAX_FLEET_ANNOUNCE_INTERVAL}.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is out of range
	 */
	public static Duration requireAnnounceInterval(String option, @Nullable Duration value) {
		if (value == null || value.toMillis() < 1 || value.compareTo(MAX_FLEET_ANNOUNCE_INTERVAL) > 0) {
			throw new IllegalArgumentException(option + " must be between 1 ms and "
					+ MAX_FLEET_ANNOUNCE_INTERVAL.toMinutes() + " minutes: " + value);
		}
		return value;
	}

	/**
	 * Checks a duration that must be positive.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is {@code null}, zero or negative
	 */
	public static Duration requirePositive(String option, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(option + " must be positive: " + value);
		}
		return value;
	}

	/**
	 * Checks a duration that must not be negative.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is {@code null} or negative
	 */
	public static Duration requireNotNegative(String option, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			throw new IllegalArgumentException(option + " must not be negative: " + value);
		}
		return value;
	}

	/**
	 * Checks a count that must be at least 1.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is below 1
	 */
	public static int requireAtLeastOne(String option, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(option + " must be at least 1: " + value);
		}
		return value;
	}

	/**
	 * Checks a watchdog timeout: from {@link #MIN_WATCHDOG_TIMEOUT} to {@link #MAX_LEASE}.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is out of range
	 */
	public static Duration requireWatchdogTimeout(String option, @Nullable Duration value) {
		if (value == null || value.compareTo(MIN_WATCHDOG_TIMEOUT) < 0 || value.compareTo(MAX_LEASE) > 0) {
			throw new IllegalArgumentException(option + " must be between " + MIN_WATCHDOG_TIMEOUT.toMillis()
					+ " ms and " + MAX_LEASE.toDays() + " days: " + value);
		}
		return value;
	}

	/**
	 * Checks a claim-ahead window: from 0 to {@link #MAX_TASK_CLAIM_AHEAD}.
	 * @param option the option's name, as the caller knows it
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is out of range
	 */
	public static Duration requireClaimAhead(String option, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.compareTo(MAX_TASK_CLAIM_AHEAD) > 0) {
			throw new IllegalArgumentException(option + " must be between 0 and "
					+ MAX_TASK_CLAIM_AHEAD.toSeconds() + " s: " + value);
		}
		return value;
	}

	/**
	 * Checks a payload limit: from 1 byte to {@link #MAX_TASK_PAYLOAD_BYTES}.
	 * @param option the option's name, as the caller knows it
	 * @param bytes the value
	 * @return the value
	 * @throws IllegalArgumentException naming the option when it is out of range
	 */
	public static int requirePayloadLimit(String option, long bytes) {
		if (bytes < 1 || bytes > MAX_TASK_PAYLOAD_BYTES) {
			throw new IllegalArgumentException(option + " must be between 1 byte and 512 MB: " + bytes + " bytes");
		}
		return (int) bytes;
	}

}
