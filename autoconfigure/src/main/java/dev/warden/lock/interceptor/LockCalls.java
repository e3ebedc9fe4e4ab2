package dev.warden.lock.interceptor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.lock.DistributedMutex;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's calls of {@link dev.warden.lock.annotation.DistributedLock} methods: how many wait
 * for their locks, which hold them now, and a {@link Listener} told how each wait and each hold
 * ended, for metrics. Waits and holds of every return type are counted, blocking and asynchronous.
 */
public final class LockCalls {

	private static final Logger logger = LoggerFactory.getLogger(LockCalls.class);

	private final AtomicInteger waiting = new AtomicInteger();

	private final Set<DefaultLockSet> holding = ConcurrentHashMap.newKeySet();

	private final Listener listener;

	private final ObservationRegistry observations;

	/** Counts calls and tells no one. */
	public LockCalls() {
		this(Listener.NONE, ObservationRegistry.NOOP);
	}

	/**
	 * @param listener told how each wait and each hold ended
	 * @param observations where each wait is an observation ({@code warden.lock.wait}, tagged with
	 * the annotation's name, the kind of lock and the outcome)
	 */
	public LockCalls(Listener listener, ObservationRegistry observations) {
		this.listener = listener;
		this.observations = observations;
	}

	/** How a call's wait for its locks ended. */
	public enum Outcome {

		/** Every lock was acquired. */
		ACQUIRED,

		/** The wait ran out. */
		TIMEOUT,

		/** The acquisition failed: Redis could not be reached, or the wait was interrupted or cancelled. */
		ERROR;

		private final String tag = name().toLowerCase(Locale.ROOT);

		/** The outcome as a metric tag value. */
		public String tag() {
			return tag;
		}

	}

	/**
	 * Told how each call's wait for its locks and each hold ended. Called on the calling thread or
	 * on Warden's internal threads: implementations must be quick and must not block.
	 */
	public interface Listener {

		/** A listener that does nothing. */
		Listener NONE = new Listener() {
		};

		/**
		 * A call's wait for its locks ended.
		 * @param operation the annotated method
		 * @param outcome how it ended
		 * @param waitNanos how long it took
		 */
		default void onAcquire(LockOperation operation, Outcome outcome, long waitNanos) {
		}

		/**
		 * A call released its locks (or left them to a minimum hold).
		 * @param operation the annotated method
		 * @param heldNanos how long it held them
		 */
		default void onRelease(LockOperation operation, long heldNanos) {
		}

		/**
		 * A call acquired its locks, after {@link #onAcquire}: the method runs under them now. For
		 * listeners that keep a record of what ran under which lock, such as a test's.
		 * @param operation the annotated method
		 * @param names the lock names, sorted
		 */
		default void onHeld(LockOperation operation, List<String> names) {
		}

		/**
		 * A call released its locks (or left them to a minimum hold), after {@link #onRelease}.
		 * @param operation the annotated method
		 * @param names the lock names, sorted
		 */
		default void onReleased(LockOperation operation, List<String> names) {
		}

	}

	/**
	 * One call holding its locks.
	 *
	 * @param names the lock names, sorted
	 * @param kind the kind of lock, as in {@link dev.warden.lock.annotation.LockType}, lower case
	 * @param method the annotated method
	 * @param since when the locks were acquired, by this instance's clock
	 * @param locks the locks, to ask Redis for their leases
	 */
	public record Hold(List<String> names, String kind, String method, Instant since, List<DistributedMutex> locks) {
	}

	/** How many calls wait for their locks now. */
	public int waiting() {
		return waiting.get();
	}

	/** The calls holding their locks now, the longest held first. */
	public List<Hold> holds() {
		List<Hold> holds = new ArrayList<>(holding.size());
		for (DefaultLockSet set : holding) {
			holds.add(set.hold());
		}
		holds.sort(Comparator.comparing(Hold::since));
		return holds;
	}

	long waitStarted() {
		waiting.incrementAndGet();
		return System.nanoTime();
	}

	/** Starts the observation of a call's wait (a no-op one without a registry). */
	Observation observeWait(LockOperation operation) {
		if (observations.isNoop()) {
			return Observation.NOOP;
		}
		return Observation.createNotStarted("warden.lock.wait", observations)
			.contextualName("lock " + operation.label())
			.lowCardinalityKeyValue("name", operation.label())
			.lowCardinalityKeyValue("kind", operation.type().tag())
			.start();
	}

	void waitEnded(DefaultLockSet set, Outcome outcome, long startedNanos) {
		waiting.decrementAndGet();
		if (outcome == Outcome.ACQUIRED) {
			holding.add(set);
		}
		try {
			listener.onAcquire(set.operation(), outcome, System.nanoTime() - startedNanos);
			if (outcome == Outcome.ACQUIRED) {
				listener.onHeld(set.operation(), set.names());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Lock call listener failed", ex);
		}
	}

	void released(DefaultLockSet set, long heldNanos) {
		if (!holding.remove(set)) {
			return;
		}
		try {
			listener.onRelease(set.operation(), heldNanos);
			listener.onReleased(set.operation(), set.names());
		}
		catch (RuntimeException ex) {
			logger.warn("Lock call listener failed", ex);
		}
	}

}
