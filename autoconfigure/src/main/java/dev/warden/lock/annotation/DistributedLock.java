package dev.warden.lock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.warden.aot.WardenAnnotationsReflectiveProcessor;
import org.springframework.aot.hint.annotation.Reflective;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Spring bean method under a distributed lock.
 *
 * <pre>{@code
 * @DistributedLock(key = "#sku", waitTime = 2000)
 * @Transactional
 * public Order purchase(String sku, int quantity) { ... }
 * }</pre>
 *
 * <p>
 * <b>Lock names.</b> The lock's Redis key is {@code warden.lock.key-prefix} + {@link #name()},
 * followed by {@code ":" + key} for each evaluated {@link #key()}. Several keys (or a key that
 * evaluates to a collection or an array) lock all of them as one all-or-nothing multi-lock,
 * acquired in sorted order so two callers can never deadlock on the same set.
 * <p>
 * <b>Expressions.</b> Keys are SpEL over the call: parameters by name ({@code #orderId},
 * {@code #order.sku}) or position ({@code #p0}, {@code #a0}), {@code #root.method},
 * {@code #root.args}, {@code #root.target}, and beans as {@code @beanName}. Each expression is
 * parsed once, and checked when the application starts: an unparsable expression or an unknown
 * parameter name fails startup with a message naming the method. A key that evaluates to
 * {@code null} or blank throws {@link IllegalArgumentException} and the method does not run.
 * <p>
 * <b>Ownership.</b> A method returning a plain value holds the lock for the calling thread, so a
 * nested annotated method with the same key re-enters it. A method returning a
 * {@code CompletionStage} holds it until the stage completes; a {@code Mono} or {@code Flux} from
 * subscription until its terminal signal or cancellation: such holds belong to the invocation,
 * not to a thread.
 * <p>
 * <b>Ordering.</b> The lock surrounds {@code @Transactional} by default, so the transaction
 * commits before the lock is released (see {@code warden.lock.aspect-order}).
 * <p>
 * Usable as a meta-annotation, and on a type for all its public methods.
 */
@Target({ ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Reflective(WardenAnnotationsReflectiveProcessor.class)
public @interface DistributedLock {

	/**
	 * The lock name, before the keys; by default the declaring class's name and the method's
	 * name, such as {@code com.example.OrderService.purchase}.
	 * @return the lock name, or empty for the default
	 */
	String name() default "";

	/** {@return the kind of lock: reentrant (the default), fair, or either side of a read-write lock} */
	LockType type() default LockType.REENTRANT;

	/**
	 * SpEL expressions for the lock keys. None locks the name alone (one lock for every call).
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * How long to wait for the lock, in {@link #timeUnit()}; {@code 0} tries once. {@code -1} (the
	 * default) uses {@code warden.lock.default-wait-time}, which is 0 unless configured.
	 * @return the wait, or {@code -1}
	 */
	long waitTime() default -1;

	/**
	 * How long a hold lasts unless released first, in {@link #timeUnit()}. {@code -1} (the default)
	 * holds it under the watchdog, renewed until the method returns.
	 * @return the lease, or {@code -1}
	 */
	long leaseTime() default -1;

	/**
	 * How long the lock stays held after it was acquired, at least, in {@link #timeUnit()}: when the
	 * method returns sooner, the lock is left to expire then instead of being released. For a
	 * {@code @Scheduled} method that must run once per period across instances whose clocks (or
	 * triggers) differ by less than this: the instance that fires later finds the lock held and
	 * skips (with {@code onFailure = SKIP}). {@code 0} (the default) releases when the method
	 * returns. A call with a minimum hold holds its lock for a fresh owner, not its thread, so a
	 * later call on the same thread within that time does not re-enter it.
	 * @return the minimum hold, or {@code 0}
	 */
	long holdAtLeast() default 0;

	/** {@return the unit of {@link #waitTime()}, {@link #leaseTime()} and {@link #holdAtLeast()}} */
	TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

	/** {@return what to do when the lock is not acquired within the wait} */
	OnLockFailure onFailure() default OnLockFailure.THROW;

	/**
	 * Whether the call takes a fencing token, which the method reads with
	 * {@link LockContext#currentToken()}. Off by default: a call that never reads a token then
	 * costs no write to a counter. Read, multi-key and asynchronous calls: see {@link LockContext}.
	 * @return whether the call takes a fencing token
	 */
	boolean fencingToken() default false;

	/**
	 * With {@link OnLockFailure#FALLBACK}: the name of a method of the same bean taking the same
	 * parameters, optionally followed by one parameter that accepts a
	 * {@link dev.warden.lock.LockAcquisitionException}, and returning a type assignable to this
	 * method's return type.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

}
