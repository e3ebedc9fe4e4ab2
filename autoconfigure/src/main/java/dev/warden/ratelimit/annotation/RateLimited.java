package dev.warden.ratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.warden.aot.WardenAnnotationsReflectiveProcessor;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs a Spring bean method within a rate limit shared by every instance of the application.
 *
 * <pre>{@code
 * @RateLimited(name = "payments", key = "#customerId", permits = "${payments.rate:10}", period = "1s",
 *         burst = "5", waitTime = "200ms")
 * public Receipt charge(String customerId, Money amount) { ... }
 * }</pre>
 *
 * <p>
 * Each call takes {@link #cost()} permits from the limiter named {@link #name()}, followed by
 * {@code ":" + key} for each evaluated {@link #key()} (one limiter per customer, per tenant, per
 * API key), before the method runs; a call that finds none waits up to {@link #waitTime()} (its
 * permits reserved at once, exactly as long as Redis says), and otherwise does what
 * {@link #onLimit()} says. Keys are SpEL over the call, as in
 * {@link dev.warden.lock.annotation.DistributedLock}, checked when the application starts.
 * <p>
 * A method returning a {@code CompletionStage} takes its permits without blocking and runs when
 * they are its own; a {@code Mono} or {@code Flux} takes them on each subscription; a Kotlin
 * {@code suspend} function takes them suspending, without blocking a thread, and its fallback is a
 * {@code suspend} function too ({@code SKIP} needs a nullable return type). A {@code suspend}
 * function returning a {@code Flow}, and any other type whose work goes on after the call, fail
 * startup naming the method. The limit sits outside {@code @DistributedLock} and {@code @Transactional}:
 * a call refused by its limit neither waits for a lock nor opens a transaction.
 * <p>
 * Usable as a meta-annotation, and on a type for all its public methods.
 */
@Target({ ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Reflective(WardenAnnotationsReflectiveProcessor.class)
public @interface RateLimited {

	/**
	 * The limiter's name, before the keys; by default the declaring class's name and the method's
	 * name, such as {@code com.example.PaymentClient.charge}.
	 * @return the limiter's name, or empty for the default
	 */
	String name() default "";

	/** {@return SpEL expressions for the limiter's keys, joined with {@code ':'}. None: one limiter for every call} */
	String[] key() default {};

	/** {@return how many permits per {@link #period()}; placeholders allowed ({@code "${payments.rate}"})} */
	String permits();

	/** {@return the period, as a duration ({@code "1s"}, {@code "1m"}, {@code "PT1H"}); placeholders allowed} */
	String period() default "1s";

	/** {@return how many permits a full limiter grants at once; by default {@link #permits()}. Placeholders allowed} */
	String burst() default "";

	/** {@return how many permits one call takes: from 1 to the burst} */
	int cost() default 1;

	/** {@return how long a call may wait for its permits, as a duration; {@code "0"} (the default) does not wait} */
	String waitTime() default "0";

	/** {@return what a call that finds no permit does} */
	OnRateLimit onLimit() default OnRateLimit.THROW;

	/**
	 * With {@link OnRateLimit#FALLBACK}: the method of the same bean called instead, with the same
	 * parameters, optionally followed by one that accepts the
	 * {@link dev.warden.ratelimit.RateLimitExceededException}.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

}
