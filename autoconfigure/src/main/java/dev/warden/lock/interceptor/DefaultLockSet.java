package dev.warden.lock.interceptor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.warden.lock.DistributedMutex;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.LockOwner;
import dev.warden.lock.MultiLock;
import dev.warden.lock.spi.LockSet;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The locks one call needs, for one owner: acquired all or nothing, in the sorted order of their
 * names (so two calls that need overlapping sets cannot deadlock), released in reverse order.
 */
final class DefaultLockSet implements LockSet {

	private final List<DistributedMutex> locks;

	private final MultiLock multiLock;

	private final List<String> names;

	private final LockOwner owner;

	private final long waitMillis;

	private final long leaseMillis;

	private final long holdAtLeastMillis;

	private final LockOperation operation;

	private final LockCalls calls;

	/** When the last acquisition succeeded, by this process's monotonic clock. */
	private volatile long acquiredNanos;

	/** When the wait for the locks started, by this process's monotonic clock. */
	private long waitStartedNanos;

	private final AtomicBoolean waitOver = new AtomicBoolean();

	private volatile Observation waitObservation = Observation.NOOP;


	DefaultLockSet(List<String> sortedNames, Function<String, DistributedMutex> lockFactory, LockOwner owner,
			LockOperation operation, LockCalls calls) {
		this.names = sortedNames;
		this.locks = sortedNames.stream().map(lockFactory).toList();
		this.multiLock = new MultiLock(locks, () -> owner);
		this.owner = owner;
		this.operation = operation;
		this.calls = calls;
		this.waitMillis = operation.waitMillis();
		this.leaseMillis = operation.leaseMillis();
		this.holdAtLeastMillis = operation.holdAtLeastMillis();
	}

	LockOperation operation() {
		return operation;
	}

	LockCalls.Hold hold() {
		// The wall-clock time is worked out when asked, not on every acquisition.
		Instant since = Instant.now().minusNanos(System.nanoTime() - acquiredNanos);
		return new LockCalls.Hold(names, operation.type().tag(), operation.describe(), since,
				locks);
	}

	private void acquired() {
		acquiredNanos = System.nanoTime();
	}

	private void startWait() {
		waitObservation = calls.observeWait(operation);
		waitStartedNanos = calls.waitStarted();
	}

	/** Ends the wait once, whichever of the acquisition and a cancellation comes first. */
	private boolean endWait(LockCalls.Outcome outcome) {
		if (!waitOver.compareAndSet(false, true)) {
			return false;
		}
		if (outcome == LockCalls.Outcome.ACQUIRED) {
			acquired();
		}
		calls.waitEnded(this, outcome, waitStartedNanos);
		waitObservation.lowCardinalityKeyValue("outcome", outcome.tag()).stop();
		return true;
	}

	private static LockCalls.Outcome outcome(boolean acquired) {
		return acquired ? LockCalls.Outcome.ACQUIRED : LockCalls.Outcome.TIMEOUT;
	}

	@Override
	public List<String> names() {
		return names;
	}

	@Override
	public LockOwner owner() {
		return owner;
	}

	@Override
	public LockAcquisitionException failure() {
		return new LockAcquisitionException(names, waitMillis);
	}

	@Override
	public boolean acquire() throws InterruptedException {
		return waitFor(() -> (leaseMillis == LockOperation.WATCHDOG_LEASE)
				? multiLock.tryLock(owner, waitMillis, TimeUnit.MILLISECONDS)
				: multiLock.tryLock(owner, waitMillis, leaseMillis, TimeUnit.MILLISECONDS), Boolean::booleanValue);
	}


	@Override
	public @Nullable Map<String, Long> acquireWithTokens() throws InterruptedException {
		return waitFor(() -> (leaseMillis == LockOperation.WATCHDOG_LEASE)
				? multiLock.tryLockWithTokens(owner, waitMillis, TimeUnit.MILLISECONDS)
				: multiLock.tryLockWithTokens(owner, waitMillis, leaseMillis, TimeUnit.MILLISECONDS), Objects::nonNull);
	}

	/** A blocking acquisition. */
	@FunctionalInterface
	private interface Attempt<T> {

		@Nullable T run() throws InterruptedException;

	}

	/** Runs a blocking acquisition as this call's wait: counted, observed, and ended whatever happens. */
	private <T> @Nullable T waitFor(Attempt<T> attempt, Predicate<@Nullable T> acquired) throws InterruptedException {
		startWait();
		T result;
		try {
			result = attempt.run();
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			endWait(LockCalls.Outcome.ERROR);
			throw ex;
		}
		endWait(outcome(acquired.test(result)));
		return result;
	}


	@Override
	public CompletableFuture<Boolean> acquireAsync() {
		return acquireAsync(false, tokens -> Boolean.TRUE, Boolean.FALSE);
	}

	@Override
	public CompletableFuture<@Nullable Map<String, Long>> acquireWithTokensAsync() {
		return acquireAsync(true, Map::copyOf, null);
	}

	private <T> CompletableFuture<T> acquireAsync(boolean withTokens, Function<Map<String, Long>, T> acquired,
			T notAcquired) {
		CompletableFuture<T> result = new CompletableFuture<>();
		startWait();
		// A success is counted before the caller hears of it (see acquireFrom); the rest when they happen.
		result.whenComplete((outcome, failure) -> endWait((failure != null) ? LockCalls.Outcome.ERROR : outcome(false)));
		Map<String, Long> tokens = new LinkedHashMap<>();
		acquireFrom(0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis), withTokens, tokens,
				() -> acquired.apply(tokens), notAcquired, result);
		return result;
	}

	private <T> void acquireFrom(int index, long deadline, boolean withTokens, Map<String, Long> tokens,
			Supplier<T> acquired, T notAcquired, CompletableFuture<T> result) {
		if (result.isDone()) {
			// Cancelled by the caller: give back what this set holds so far.
			releaseFirstAsync(index);
			return;
		}
		if (index == locks.size()) {
			if (!endWait(LockCalls.Outcome.ACQUIRED) || !result.complete(acquired.get())) {
				calls.released(this, 0);
				releaseFirstAsync(index);
			}
			return;
		}
		long remaining = Math.max(0, deadline - System.nanoTime());
		DistributedMutex lock = locks.get(index);
		CompletableFuture<?> attempt = withTokens ? tokenAttempt(lock, remaining) : attempt(lock, remaining);
		// A cancelled acquisition gives back a hold it still obtains.
		result.whenComplete((ignored, failure) -> attempt.cancel(false));
		attempt.whenComplete((outcome, failure) -> {
			boolean held = (outcome instanceof OptionalLong token) ? token.isPresent() : Boolean.TRUE.equals(outcome);
			if (failure != null || !held) {
				releaseFirstAsync(index);
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					result.complete(notAcquired);
				}
				return;
			}
			if (outcome instanceof OptionalLong token) {
				tokens.put(names.get(index), token.getAsLong());
			}
			acquireFrom(index + 1, deadline, withTokens, tokens, acquired, notAcquired, result);
		});
	}

	private CompletableFuture<Boolean> attempt(DistributedMutex lock, long remainingNanos) {
		return (leaseMillis == LockOperation.WATCHDOG_LEASE) ? lock.tryLockAsync(owner, remainingNanos, TimeUnit.NANOSECONDS)
				: lock.tryLockAsync(owner, remainingNanos, leaseMillis * 1_000_000L, TimeUnit.NANOSECONDS);
	}

	private CompletableFuture<OptionalLong> tokenAttempt(DistributedMutex lock, long remainingNanos) {
		return (leaseMillis == LockOperation.WATCHDOG_LEASE)
				? lock.tryLockWithTokenAsync(owner, remainingNanos, TimeUnit.NANOSECONDS)
				: lock.tryLockWithTokenAsync(owner, remainingNanos, leaseMillis * 1_000_000L, TimeUnit.NANOSECONDS);
	}

	@Override
	public void release() {
		calls.released(this, System.nanoTime() - acquiredNanos);
		long keepMillis = keepMillis();
		if (keepMillis <= 0) {
			multiLock.unlock(owner);
			return;
		}
		try {
			releaseAsync().join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw ex;
		}
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		calls.released(this, System.nanoTime() - acquiredNanos);
		long keepMillis = keepMillis();
		List<CompletableFuture<Void>> releases = new ArrayList<>(locks.size());
		for (int i = locks.size() - 1; i >= 0; i--) {
			releases.add((keepMillis > 0) ? locks.get(i).unlockAfterAsync(owner, keepMillis, TimeUnit.MILLISECONDS)
					: locks.get(i).unlockAsync(owner));
		}
		return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
	}

	/** How much longer the locks must stay held: what is left of the minimum hold. */
	private long keepMillis() {
		if (holdAtLeastMillis <= 0) {
			return 0;
		}
		return holdAtLeastMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acquiredNanos);
	}

	private CompletableFuture<Void> releaseFirstAsync(int count) {
		List<CompletableFuture<Void>> releases = new ArrayList<>(count);
		for (int i = count - 1; i >= 0; i--) {
			releases.add(locks.get(i).unlockAsync(owner));
		}
		return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
	}

}
