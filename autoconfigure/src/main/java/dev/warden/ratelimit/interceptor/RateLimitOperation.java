package dev.warden.ratelimit.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import dev.warden.expression.MethodExpressions;
import dev.warden.lock.interceptor.FallbackMethod;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.annotation.OnRateLimit;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

/**
 * A {@link dev.warden.ratelimit.annotation.RateLimited} annotation parsed and checked once.
 *
 * @param method the annotated method, as implemented by the target class
 * @param name the limiter's name, before the keys
 * @param keyExpressions the key expressions as written
 * @param keys the parsed key expressions
 * @param limit the rate
 * @param cost permits per call
 * @param waitTime how long a call may wait for its permits
 * @param onLimit what a call that finds none does
 * @param fallback the fallback method, with {@link OnRateLimit#FALLBACK}
 * @param shape how the method's work runs: on the call, in a stage, or per subscription
 */
public record RateLimitOperation(Method method, String name, List<String> keyExpressions, List<Expression> keys,
		RateLimit limit, int cost, Duration waitTime, OnRateLimit onLimit, @Nullable FallbackMethod fallback,
		Shape shape) {

	/** How a method's work runs, and so when its permits are taken. */
	public enum Shape {

		/** On the call: the permits are taken before it, blocking for a wait. */
		PLAIN,

		/** In the {@code CompletionStage} it returns: taken without blocking, the method called once they are. */
		STAGE,

		/** Per subscription to the {@code Mono} it returns. */
		MONO,

		/** Per subscription to the {@code Flux} it returns. */
		FLUX,

		/**
		 * A Kotlin {@code suspend} function: taken without blocking, in the {@code Mono} Spring hands
		 * the advice for the call, which the caller's coroutine awaits.
		 */
		SUSPEND

	}

	/** A short description of the method, for messages. */
	public String describe() {
		return MethodExpressions.describe(method);
	}

}
