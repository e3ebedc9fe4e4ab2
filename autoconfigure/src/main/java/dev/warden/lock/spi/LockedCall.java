package dev.warden.lock.spi;

import java.lang.reflect.Method;

import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.LockOwner;
import dev.warden.lock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;

/**
 * One call of a {@link dev.warden.lock.annotation.DistributedLock} method, as a
 * {@link LockedReturnTypeHandler} sees it: its lock names are evaluated; nothing is acquired yet.
 */
public interface LockedCall {

	/** {@return the called method} */
	Method method();

	/**
	 * Runs the method (the rest of the interceptor chain).
	 * @return what the method returned
	 * @throws Throwable what the method threw
	 */
	@Nullable Object proceed() throws Throwable;

	/** {@return the arguments of the call, as the method receives them; not to be modified} */
	@Nullable Object[] arguments();

	/**
	 * Runs the method with other arguments, of the same types (a Kotlin {@code suspend} function's
	 * continuation replaced by one with more in its context, say).
	 * @param arguments the arguments to run it with, in place of {@link #arguments()}
	 * @return what the method returned
	 * @throws Throwable what the method threw
	 */
	@Nullable Object proceed(@Nullable Object[] arguments) throws Throwable;

	/** {@return the bean the method is called on, behind its proxy} */
	Object target();

	/**
	 * Whether no other advice runs between the lock interceptor and the method for this call: a
	 * handler may then call the method on {@link #target()} itself, sparing the rest of the chain
	 * (for a Kotlin {@code suspend} function, Spring's reflective bridge).
	 * @return whether the lock interceptor is the last advice
	 */
	boolean lastAdvice();

	/** {@return the call's locks for a new owner that belongs to no thread} */
	LockSet newLockSet();

	/**
	 * The call's locks for {@code owner}: an enclosing call's owner re-enters the locks it holds.
	 * With a minimum hold ({@code holdAtLeast}) a new owner is used all the same, as a minimum hold
	 * outlives its call.
	 * @param owner the owner to acquire them for
	 * @return the locks, not acquired yet
	 */
	LockSet newLockSet(LockOwner owner);

	/** {@return whether the annotation asks for fencing tokens ({@code fencingToken = true})} */
	boolean fencingToken();

	/**
	 * Reports locks found lost when the call released them, as for a plain method: logs it, tells
	 * the lock listener of a fixed lease, and returns the {@link dev.warden.lock.LockLostException}
	 * to fail the call with when {@code warden.lock.fail-on-lost-lease} is set.
	 * @param locks the call's locks
	 * @param lost the failure of their release
	 * @return the exception to fail the call with, or {@code null} to return its result
	 */
	@Nullable RuntimeException leaseLost(LockSet locks, IllegalMonitorStateException lost);

	/** {@return what the annotation says to do when the locks are not acquired} */
	OnLockFailure onFailure();

	/**
	 * Calls the fallback method with the call's arguments (with {@link OnLockFailure#FALLBACK}).
	 * @param failure the failure to acquire the locks, passed on when the fallback method takes it
	 * @return what the fallback method returned
	 * @throws Throwable what the fallback method threw
	 */
	@Nullable Object fallback(LockAcquisitionException failure) throws Throwable;

	/**
	 * Calls the fallback method with other arguments, of the same types (see
	 * {@link #proceed(Object[])}).
	 * @param arguments the arguments to call it with, in place of {@link #arguments()}
	 * @param failure the failure to acquire the locks, passed on when the fallback method takes it
	 * @return what the fallback method returned
	 * @throws Throwable what the fallback method threw
	 */
	@Nullable Object fallback(@Nullable Object[] arguments, LockAcquisitionException failure) throws Throwable;

}
