package dev.warden.lock.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.spi.LockSet;
import dev.warden.lock.spi.LockedCall;
import dev.warden.lock.spi.LockedReturnTypeHandler;
import org.jspecify.annotations.Nullable;

/**
 * {@code CompletionStage} and {@code CompletableFuture} methods: the locks are acquired on the
 * calling thread (it waits, as a plain method's caller would), held until the stage the method
 * returned completes, and released on whichever thread completes it.
 * <p>
 * The caller gets another stage that completes after it, with the same value or exception, so that
 * what the caller does to its stage — {@code cancel()}, {@code orTimeout}, {@code complete} — does
 * not release the locks while the method's work still runs: a {@code CompletableFuture} does not
 * stop its work when cancelled. The caller's stage is of the method's own class when that is a
 * {@code CompletableFuture} ({@link CompletableFuture#newIncompleteFuture()}); a method whose stage
 * is of another class returns it as it is, and its locks follow it.
 */
public final class CompletionStageHandler implements LockedReturnTypeHandler {

	@Override
	public boolean canHandleReturnType(Class<?> returnType) {
		return CompletionStage.class.isAssignableFrom(returnType);
	}

	@Override
	public @Nullable Object handle(LockedCall call) throws Throwable {
		LockSet locks = call.newLockSet();
		boolean acquired;
		try {
			acquired = locks.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return CompletableFuture.failedFuture(new LockAcquisitionException(locks.names(), 0, ex));
		}
		if (!acquired) {
			return switch (call.onFailure()) {
				case THROW -> CompletableFuture.failedFuture(locks.failure());
				case SKIP -> CompletableFuture.completedFuture(null);
				case FALLBACK -> call.fallback(locks.failure());
			};
		}
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			locks.release();
			throw ex;
		}
		if (result == null) {
			locks.release();
			return null;
		}
		CompletionStage<?> work = (CompletionStage<?>) result;
		Relay relay = Relay.of(work);
		work.whenComplete((value, failure) -> {
			locks.releaseAsync();
			if (relay == null) {
				return;
			}
			if (failure != null) {
				relay.completed().completeExceptionally(failure);
			}
			else {
				relay.completed().complete(value);
			}
		});
		return (relay != null) ? relay.returned() : result;
	}

	/**
	 * The caller's stage: {@code completed} is completed after the work, and {@code returned} (the
	 * same, or a minimal stage of it) goes to the caller, of the work's own class.
	 */
	private record Relay(CompletableFuture<Object> completed, Object returned) {

		/** A relay of the work's class, or {@code null} when none can be made (a class of its own). */
		@SuppressWarnings("unchecked")
		static @Nullable Relay of(CompletionStage<?> work) {
			if (!(work instanceof CompletableFuture<?> future)) {
				return null;
			}
			CompletableFuture<Object> relay = (CompletableFuture<Object>) future.newIncompleteFuture();
			if (relay.getClass() != work.getClass()) {
				// A subclass that makes plain futures: the caller may expect its own class.
				return null;
			}
			if (work.getClass().getName().endsWith("$MinimalStage")) {
				// minimalCompletionStage(): it cannot be completed, so a plain future feeds one.
				CompletableFuture<Object> plain = new CompletableFuture<>();
				return new Relay(plain, plain.minimalCompletionStage());
			}
			return new Relay(relay, relay);
		}

	}

}
