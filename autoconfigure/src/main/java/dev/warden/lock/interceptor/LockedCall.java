package dev.warden.lock.interceptor;

import java.lang.reflect.Method;

import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;

/**
 * One call of a {@link dev.warden.lock.annotation.DistributedLock} method, as a
 * {@link LockedReturnTypeHandler} sees it: its lock names are evaluated; nothing is acquired yet.
 */
public interface LockedCall {

	/** The called method. */
	Method method();

	/** Runs the method (the rest of the interceptor chain). */
	@Nullable Object proceed() throws Throwable;

	/** The call's locks for a new owner that belongs to no thread. */
	LockSet newLockSet();

	/** What the annotation says to do when the locks are not acquired. */
	OnLockFailure onFailure();

	/** Calls the fallback method with the call's arguments (with {@link OnLockFailure#FALLBACK}). */
	@Nullable Object fallback(LockAcquisitionException failure) throws Throwable;

}
