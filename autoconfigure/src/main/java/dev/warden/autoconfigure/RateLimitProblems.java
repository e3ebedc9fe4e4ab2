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
 * WebFlux alike. Last among the application's advice: a handler of its own for the exception wins.
 * The detail names no limiter, class or method.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitProblems {

	@ExceptionHandler(RateLimitExceededException.class)
	ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex) {
		long seconds = retryAfterSeconds(ex.getRetryAfter());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Too many requests; retry in " + seconds + (seconds == 1 ? " second." : " seconds."));
		problem.setTitle("Too Many Requests");
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem);
	}

	/** At least one second: {@code Retry-After: 0} would ask for an immediate retry that fails too. */
	static long retryAfterSeconds(Duration retryAfter) {
		long nanos = retryAfter.toNanos();
		return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
	}

}
