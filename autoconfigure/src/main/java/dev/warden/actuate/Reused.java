package dev.warden.actuate;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A value read from Redis at most once per period, for figures that cost a walk of the whole
 * keyspace ({@code SCAN}) and that the dashboard asks for every few seconds. Callers that arrive
 * while it is being read wait for that read instead of starting their own.
 *
 * @param <T> the value's type
 */
final class Reused<T> {

	private final long periodNanos;

	private final ReentrantLock reading = new ReentrantLock();

	private volatile @Nullable T value;

	private volatile long readAtNanos;

	/** @param periodNanos how long a value read is reused */
	Reused(long periodNanos) {
		this.periodNanos = periodNanos;
	}

	/**
	 * The value read last, or a new one when it is older than the period.
	 * @param read reads the value
	 * @return the value
	 */
	T get(Supplier<T> read) {
		T current = value;
		if (current != null && System.nanoTime() - readAtNanos < periodNanos) {
			return current;
		}
		reading.lock();
		try {
			current = value;
			if (current == null || System.nanoTime() - readAtNanos >= periodNanos) {
				current = read.get();
				readAtNanos = System.nanoTime();
				value = current;
			}
			return current;
		}
		finally {
			reading.unlock();
		}
	}

}
