package dev.warden.lock.interceptor;

import java.lang.reflect.Method;
import java.util.List;

import dev.warden.expression.MethodExpressions;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.LockType;
import dev.warden.lock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

/**
 * A {@link DistributedLock} annotation parsed and checked once for one method: what the
 * interceptor needs at every call, with nothing left to parse.
 *
 * @param method the annotated method, as implemented by the target class
 * @param type the kind of lock
 * @param name the lock name, including the configured key prefix
 * @param keyExpressions the key expressions, as written
 * @param keys the parsed key expressions
 * @param waitMillis how long to wait; 0 tries once
 * @param leaseMillis the lease, or -1 for the watchdog
 * @param onFailure what to do when the lock is not acquired
 * @param fallback the fallback method, with {@link OnLockFailure#FALLBACK}
 * @param fencingToken whether a call takes fencing tokens, for {@link dev.warden.lock.annotation.LockContext}
 * @param holdAtLeastMillis how long the locks stay held after they were acquired, at least; 0 to
 * release them when the method returns
 * @param label the annotation's name as written (or the method's, when it names none): without the
 * key prefix nor the evaluated keys, so that it names the method's locks in metrics, never one lock
 */
public record LockOperation(Method method, LockType type, String name, List<String> keyExpressions, List<Expression> keys,
		long waitMillis, long leaseMillis, OnLockFailure onFailure, @Nullable FallbackMethod fallback,
		boolean fencingToken, long holdAtLeastMillis, String label) {

	/** The lease value meaning "held under the watchdog". */
	public static final long WATCHDOG_LEASE = -1;

	/** A short description of the method, for messages. */
	public String describe() {
		return MethodExpressions.describe(method);
	}

}
