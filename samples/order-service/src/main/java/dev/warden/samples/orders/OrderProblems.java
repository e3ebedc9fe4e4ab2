package dev.warden.samples.orders;

import java.net.URI;
import java.util.UUID;

import dev.warden.RedisUnavailableException;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.samples.orders.OrderService.InvalidOrderException;
import dev.warden.samples.orders.OrderService.OrderNotPayableException;
import dev.warden.samples.orders.OrderService.OutOfStockException;
import dev.warden.samples.orders.OrderService.UnknownProductException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error of the HTTP API as an RFC 9457 problem detail ({@code application/problem+json}):
 * a type, a title and a detail written for the caller. Nothing internal reaches the caller: an
 * unexpected failure answers 500 with a reference to the log line that holds its stack trace, and
 * Spring MVC's own errors (a body that is not JSON, a path variable of the wrong type) keep their
 * generic details.
 */
@RestControllerAdvice
class OrderProblems extends ResponseEntityExceptionHandler {

	private static final Logger logger = LoggerFactory.getLogger(OrderProblems.class);

	/** Where the problem types are documented; a real service points at its own API documentation. */
	private static final String TYPE_BASE = "https://orders.example/problems/";

	/** How long a caller should wait before retrying when the stock or order is busy. */
	private static final String BUSY_RETRY_SECONDS = "1";

	/** How long a caller should wait before retrying when Redis is unavailable. */
	private static final String UNAVAILABLE_RETRY_SECONDS = "5";

	@ExceptionHandler
	ProblemDetail invalidOrder(InvalidOrderException ex) {
		return problem(HttpStatus.BAD_REQUEST, "invalid-order", "Invalid order", ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail unknownProduct(UnknownProductException ex) {
		return problem(HttpStatus.NOT_FOUND, "unknown-product", "Unknown product", ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail outOfStock(OutOfStockException ex) {
		return problem(HttpStatus.CONFLICT, "out-of-stock", "Out of stock", ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail notPayable(OrderNotPayableException ex) {
		return problem(HttpStatus.CONFLICT, "order-not-payable", "Order not payable", ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> busy(LockAcquisitionException ex) {
		logger.info("Answered 503: {}", ex.getMessage());
		return unavailable(BUSY_RETRY_SECONDS, "busy", "Busy",
				"Other requests for the same product are being served; retry in a moment");
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> unavailable(RedisUnavailableException ex) {
		logger.warn("Answered 503: {}", ex.getMessage());
		return unavailable(UNAVAILABLE_RETRY_SECONDS, "unavailable", "Temporarily unavailable",
				"The service cannot take orders right now; retry later");
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> unexpected(Exception ex) {
		if (ex instanceof ErrorResponse response) {
			// A web error the superclass does not list: its own status and generic detail.
			return ResponseEntity.status(response.getStatusCode()).headers(response.getHeaders()).body(response.getBody());
		}
		String reference = UUID.randomUUID().toString();
		logger.error("Answered 500, reference {}", reference, ex);
		ProblemDetail problem = problem(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error",
				"The request could not be completed; quote reference " + reference + " when reporting it");
		problem.setProperty("reference", reference);
		return ResponseEntity.internalServerError().body(problem);
	}

	private static ResponseEntity<ProblemDetail> unavailable(String retrySeconds, String type, String title,
			String detail) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header("Retry-After", retrySeconds)
			.body(problem(HttpStatus.SERVICE_UNAVAILABLE, type, title, detail));
	}

	private static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create(TYPE_BASE + type));
		problem.setTitle(title);
		return problem;
	}

}
