package dev.warden.task.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.warden.aot.WardenAnnotationsReflectiveProcessor;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Makes a {@code void} bean method the handler of a delayed queue: calling it through the bean
 * schedules it instead of running it. Its arguments are stored in Redis as JSON, and when the task
 * is due one instance of the application calls the method with them.
 *
 * <pre>{@code
 * @DelayedTask(queue = "order-timeout", delay = "${orders.payment-timeout:30m}", id = "'order-' + #orderId")
 * public void closeIfUnpaid(long orderId) {
 *     // runs once the delay has passed, on one instance, even if every instance restarted meanwhile
 * }
 * }</pre>
 *
 * <p>
 * Delivery is at least once: a task whose handler crashed the process runs again after the
 * visibility timeout, so make handlers idempotent (check the state they change, or use a
 * conditional update). A handler that throws is retried with backoff, then kept as a dead letter.
 * <p>
 * The task id makes scheduling idempotent: a call whose id is already pending leaves the pending
 * task as it is. The same queue is reachable through
 * {@code warden.getDelayedQueue(queue)}: cancel or reschedule a task by its id there. With one
 * parameter, the stored payload is that argument's JSON; with several, a JSON array of them.
 * <p>
 * Checked at startup: only {@code void} methods, a parsable delay, a parsable {@code id}
 * expression, and argument types that JSON can carry both ways; anything else fails startup
 * naming the method. As with any Spring proxy, a call from inside the same bean is not
 * intercepted and runs at once.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(WardenAnnotationsReflectiveProcessor.class)
public @interface DelayedTask {

	/** {@return the queue's name; by default the declaring class's name and the method's name} */
	String queue() default "";

	/**
	 * How long after the call the task is due, counted by Redis's clock: {@code 30m},
	 * {@code 500ms}, {@code PT30M}, or a property placeholder such as
	 * {@code ${orders.payment-timeout:30m}}.
	 * @return the delay
	 */
	String delay();

	/**
	 * SpEL for the task id, over the method's arguments ({@code #orderId},
	 * {@code 'order-' + #order.id}); by default every call gets a fresh id.
	 * @return the id expression, or empty for a fresh id
	 */
	String id() default "";

	/** {@return deliveries before the task becomes a dead letter; -1 uses {@code warden.delayed-task.max-attempts}} */
	int maxAttempts() default -1;

	/**
	 * The wait before the second attempt, doubled for each further one ({@code 10s}); empty uses
	 * {@code warden.delayed-task.backoff}.
	 * @return the backoff, or empty
	 */
	String backoff() default "";

	/**
	 * How long a delivered task stays invisible to other instances before it is delivered again
	 * ({@code 10m}); a running handler's claim is extended every third of it, so this bounds how
	 * long a dead instance keeps the task, not how long the handler may run. Empty uses
	 * {@code warden.delayed-task.visibility-timeout}.
	 * @return the visibility timeout, or empty
	 */
	String visibilityTimeout() default "";

	/**
	 * Whether a call made inside a Spring-managed transaction schedules the task when that
	 * transaction commits, and not at all when it rolls back (the default), or at once, whatever
	 * becomes of the transaction. Outside a transaction a call always schedules at once.
	 * @return whether the schedule follows the transaction
	 */
	boolean transactional() default true;

	/**
	 * The version of the task's arguments, raised when a change to the method's parameters (or to
	 * their classes) would make tasks scheduled by the previous version unreadable: a parameter
	 * added, removed or reordered, a field renamed without {@code @JsonAlias}, a type changed to
	 * another kind. A payload of an older version is read by the {@link TaskUpgrade} of its version,
	 * or goes to the dead letters, saying which upgrade is missing; one of a newer version (from an
	 * instance already deployed) fails its attempt and is delivered again, so that a newer instance
	 * can run it. Version 1, the default, stores the arguments as they are; later versions store them
	 * with their version number.
	 * @return the arguments' version
	 */
	int version() default 1;

	/**
	 * Limits on how this queue's tasks start across all instances: per key (a tenant, say) or for
	 * the whole queue, at most so many running at once and so many starts per period. None by
	 * default, or the queue's {@code warden.delayed-task.queues.<queue>.limit.*} properties.
	 * @return the limits
	 */
	TaskLimit limit() default @TaskLimit;

}
