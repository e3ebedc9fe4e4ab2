package dev.warden.autoconfigure;

import java.time.Duration;

import dev.warden.ratelimit.RateLimitExceededException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a request whose handler a {@code @RateLimited} method refused with 429 Too Many Requests,
 * {@code Retry-After} (whole seconds, rounded up) and RFC 9457 problem details, in Spring MVC and
 * WebFlux alike. The detail names no limiter, class or method.
 * <p>
 * In Spring MVC, Warden hands the refusal to this bean's handler before any of the application's
 * exception handlers are asked (an exception resolver ordered ahead of Spring MVC's), so neither a
 * controller's own nor an application-wide {@code @ExceptionHandler(Exception.class)}, whatever its
 * order, answers it with its own 500. In WebFlux this is advice first among the application's
 * ({@link Ordered#HIGHEST_PRECEDENCE}): Spring asks a controller's own handlers, then the advice
 * beans in their order, and takes the first that has any handler for the exception. To answer it
 * another way, declare a bean of this type (a subclass, overriding {@link #tooManyRequests} or
 * {@link #retryAfterSeconds(RateLimitExceededException)}; it replaces Warden's), or set
 * {@code warden.rate-limit.problem-details.enabled=false} and handle
 * {@link RateLimitExceededException} in the application's own advice.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RateLimitProblems {

	/**
	 * The answer to a refusal: 429, {@code Retry-After} and problem details.
	 * @param ex the refusal
	 * @return the response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	protected ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex) {
		long seconds = retryAfterSeconds(ex);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Too many requests; retry in " + seconds + (seconds == 1 ? " second." : " seconds."));
		problem.setTitle("Too Many Requests");
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem);
	}

	/**
	 * The {@code Retry-After} of a refusal, in whole seconds: its wait rounded up, at least one.
	 * @param ex the refusal
	 * @return the seconds
	 */
	protected long retryAfterSeconds(RateLimitExceededException ex) {
		return retryAfterSeconds(ex.getRetryAfter());
	}

	/** At least one second: {@code Retry-After: 0} would ask for an immediate retry that fails too. */
	static long retryAfterSeconds(Duration retryAfter) {
		long nanos = retryAfter.toNanos();
		return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
	}

}
