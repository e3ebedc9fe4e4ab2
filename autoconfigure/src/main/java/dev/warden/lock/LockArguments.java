package dev.warden.lock;

import java.util.concurrent.TimeUnit;

import dev.warden.WardenDefaults;
import dev.warden.WardenNames;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the arguments every synchronizer takes (names, waits, leases), so that each is
 * refused the same way, at once, with a message that says what was wrong.
 */
public final class LockArguments {

	private LockArguments() {
	}

	/**
	 * Checks a synchronizer's name, which is also its Redis key.
	 * @param name the name
	 * @param kind what it names, for the message: {@code lock}, {@code semaphore}
	 * @return the name
	 * @throws IllegalArgumentException when it is {@code null} or blank, holds a control character,
	 * is longer than {@link WardenNames#MAX_LENGTH}, or holds a brace
	 */
	public static String requireName(@Nullable String name, String kind) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A " + kind + " name must not be null or blank");
		}
		WardenNames.requireSafe(name, kind + " name");
		if (hasBrace(name)) {
			throw new IllegalArgumentException("A " + kind + " name must not contain '{' or '}', since Warden puts "
					+ "the name in the Redis Cluster hash tag of the keys it derives from it: " + name);
		}
		return name;
	}

	/**
	 * Whether {@code text} holds a brace, which would change the Redis Cluster hash tag of the keys
	 * derived from a name: such keys would not all be in one hash slot.
	 * @param text a name, or part of one
	 * @return whether it contains '{' or '}'
	 */
	public static boolean hasBrace(String text) {
		return text.indexOf('{') >= 0 || text.indexOf('}') >= 0;
	}

	/**
	 * Checks a number of permits a semaphore is set to.
	 * @param permits the permits
	 * @return the permits
	 * @throws IllegalArgumentException when negative
	 */
	public static int requireCapacity(int permits) {
		if (permits < 0) {
			throw new IllegalArgumentException("Permits must not be negative: " + permits);
		}
		return permits;
	}

	/**
	 * Checks a wait and converts it.
	 * @param waitTime how long to wait; 0 tries once
	 * @param unit its unit
	 * @return the wait in nanoseconds
	 * @throws IllegalArgumentException when it is negative
	 */
	public static long waitNanos(long waitTime, TimeUnit unit) {
		if (waitTime < 0) {
			throw new IllegalArgumentException("The wait time must not be negative: " + waitTime + " " + unit);
		}
		return unit.toNanos(waitTime);
	}

	/**
	 * Checks a lease and converts it.
	 * @param leaseTime how long a hold or permit lasts unless released first
	 * @param unit its unit
	 * @param what what the lease is of, for the message: {@code The lease time}
	 * @return the lease in milliseconds, at least 1
	 * @throws IllegalArgumentException when it is not positive or longer than
	 * {@link WardenDefaults#MAX_LEASE}
	 */
	public static long leaseMillis(long leaseTime, TimeUnit unit, String what) {
		if (leaseTime <= 0) {
			throw new IllegalArgumentException(what + " must be positive: " + leaseTime + " " + unit);
		}
		long millis = unit.toMillis(leaseTime);
		if (millis > WardenDefaults.MAX_LEASE.toMillis()) {
			throw new IllegalArgumentException(what + " must be at most " + WardenDefaults.MAX_LEASE.toDays()
					+ " days: " + leaseTime + " " + unit);
		}
		return Math.max(1, millis);
	}

}
