package dev.warden.autoconfigure;

import java.lang.reflect.Method;

import dev.warden.ratelimit.RateLimitExceededException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.ServletInvocableHandlerMethod;

/**
 * Answers a {@link RateLimitExceededException} in Spring MVC with the {@link RateLimitProblems}
 * bean's handler, before the application's own handlers are asked: the {@code DispatcherServlet}
 * asks its exception resolvers in their order, and this one comes before Spring MVC's (order 0), so
 * neither a controller's own {@code @ExceptionHandler(Exception.class)} nor an application-wide
 * catch-all advice, whatever its order, turns the refusal into another answer. Any other exception
 * is left to them. The answer is written as Spring MVC writes a handler's: with its message
 * converters and content negotiation.
 */
final class RateLimitExceptionResolver extends ExceptionHandlerExceptionResolver {

	private final RateLimitProblems problems;

	private final ExceptionHandlerMethodResolver handlers;

	RateLimitExceptionResolver(RateLimitProblems problems) {
		this.problems = problems;
		this.handlers = new ExceptionHandlerMethodResolver(ClassUtils.getUserClass(problems));
		setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
	}

	@Override
	protected @Nullable ModelAndView doResolveHandlerMethodException(HttpServletRequest request,
			HttpServletResponse response, @Nullable HandlerMethod handlerMethod, Exception exception) {
		if (refusal(exception) == null) {
			return null;
		}
		return super.doResolveHandlerMethodException(request, response, handlerMethod, exception);
	}

	@Override
	protected @Nullable ServletInvocableHandlerMethod getExceptionHandlerMethod(@Nullable HandlerMethod handlerMethod,
			Exception exception, ServletWebRequest webRequest) {
		RateLimitExceededException refusal = refusal(exception);
		Method method = (refusal != null) ? handlers.resolveMethodByThrowable(refusal) : null;
		return (method != null) ? new ServletInvocableHandlerMethod(problems, method, getApplicationContext()) : null;
	}

	/** The refusal that {@code exception} is or was caused by, or {@code null}. */
	private static @Nullable RateLimitExceededException refusal(Throwable exception) {
		Throwable cause = exception;
		for (int depth = 0; cause != null && depth < 10; depth++) {
			if (cause instanceof RateLimitExceededException refusal) {
				return refusal;
			}
			cause = cause.getCause();
		}
		return null;
	}

}
