package dev.warden.task.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits on how the tasks of a {@link DelayedTask} method start, across every instance: at most
 * {@link #concurrency} running at once and at most {@link #rate} starts per {@link #period}, per
 * {@link #key} (a tenant, say), or for the whole queue without one. A due task whose key is at its
 * limit is deferred, without taking a handler slot or counting an attempt, and runs as soon as its
 * key has room; see {@link dev.warden.task.TaskLimits}.
 * <pre class="code">
 * &#64;DelayedTask(delay = "30m", limit = &#64;TaskLimit(key = "#tenantId", concurrency = "2"))
 * public void export(String tenantId, long exportId) { ... }
 * </pre>
 * Each attribute left blank takes the queue's {@code warden.delayed-task.queues.<queue>.limit.*}
 * property, so the key can be fixed in code and the numbers in configuration. Values may hold
 * {@code ${...}} placeholders. Invalid limits fail startup naming the method.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TaskLimit {

	/**
	 * A SpEL expression over the method's parameters ({@code #tenantId}, {@code #order.customerId})
	 * giving each task's key, read from its arguments when it is due; blank puts all tasks of the
	 * queue under one key. It must not give null.
	 * @return the expression
	 */
	String key() default "";

	/**
	 * How many tasks of one key may run at once across all instances; blank for the property's
	 * value (none by default).
	 * @return a positive integer, or blank
	 */
	String concurrency() default "";

	/**
	 * How many tasks of one key may start per {@link #period}; blank for the property's value (none
	 * by default).
	 * @return a positive integer, or blank
	 */
	String rate() default "";

	/**
	 * The period of {@link #rate}, as a duration ({@code 1s}, {@code PT1M}); blank for the
	 * property's value, 1 second by default.
	 * @return the period, or blank
	 */
	String period() default "";

	/**
	 * How many starts a key that waited long enough may make at once; blank for the property's
	 * value, or the rate.
	 * @return a positive integer, or blank
	 */
	String burst() default "";

}
