package dev.warden.lock.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.warden.lock.LockAcquisitionException;
import org.jspecify.annotations.Nullable;

/**
 * {@code CompletionStage} and {@code CompletableFuture} methods: the locks are acquired on the
 * calling thread (it waits, as a plain method's caller would), held until the returned stage
 * completes, and released on whichever thread completes it.
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
		((CompletionStage<?>) result).whenComplete((value, failure) -> locks.releaseAsync());
		return result;
	}

}
