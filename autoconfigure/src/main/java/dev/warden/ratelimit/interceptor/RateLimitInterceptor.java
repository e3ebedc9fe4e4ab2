package dev.warden.ratelimit.interceptor;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.RateLimitDecision;
import dev.warden.ratelimit.RateLimitExceededException;
import dev.warden.ratelimit.RateLimitListener;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Takes a {@link dev.warden.ratelimit.annotation.RateLimited} method's permits before it runs: on
 * the calling thread for a plain or {@code CompletionStage} method (waiting, when the annotation
 * allows a wait, exactly as long as Redis says), on each subscription for a {@code Mono} or
 * {@code Flux}, without blocking. A call that finds no permit throws, is skipped, or goes to its
 * fallback.
 */
public final class RateLimitInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(RateLimitInterceptor.class);

	/** Makes the limiter of a name and a rate: the client's. */
	@FunctionalInterface
	public interface Limiters {

		DistributedRateLimiter get(String name, RateLimit limit);

	}

	private final RateLimitOperationSource operations;

	private final Supplier<Limiters> limiters;

	private final Supplier<RateLimitListener> listener;

	/**
	 * @param operations the parsed annotations
	 * @param limiters where the limiters come from, asked for at the first call
	 * @param listener told of every decision, asked for at the first call
	 */
	public RateLimitInterceptor(RateLimitOperationSource operations, Supplier<Limiters> limiters,
			Supplier<RateLimitListener> listener) {
		this.operations = operations;
		this.limiters = limiters;
		this.listener = listener;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		Class<?> targetClass = AopUtils.getTargetClass(target);
		RateLimitOperation operation = operations.getOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		String name = operations.limiterName(operation, invocation.getArguments(), target, targetClass);
		DistributedRateLimiter limiter = limiters.get().get(name, operation.limit());
		return switch (operation.shape()) {
			case PLAIN, STAGE -> onThread(invocation, operation, limiter);
			case MONO, FLUX, SUSPEND -> ReactorDelegate.perSubscription(invocation, operation, limiter, this::decided);
		};
	}

	/** Tells the listener; a listener that fails is logged, and the call goes on. */
	private RateLimitDecision decided(RateLimitOperation operation, RateLimitDecision decision) {
		try {
			listener.get().onDecision(operation.name(), decision);
		}
		catch (RuntimeException ex) {
			logger.warn("Rate limit listener failed", ex);
		}
		return decision;
	}

	private @Nullable Object onThread(MethodInvocation invocation, RateLimitOperation operation,
			DistributedRateLimiter limiter) throws Throwable {
		RateLimitDecision decision = decided(operation, limiter.decide(operation.cost(), operation.waitTime()));
		if (decision.granted()) {
			long waitNanos = decision.delay().toNanos();
			if (waitNanos > 0) {
				// Reserved: the permits are this call's once this wait, counted by Redis, is over.
				TimeUnit.NANOSECONDS.sleep(waitNanos);
			}
			return invocation.proceed();
		}
		RateLimitExceededException refused = refusal(limiter, decision);
		boolean stage = operation.shape() == RateLimitOperation.Shape.STAGE;
		return switch (operation.onLimit()) {
			case THROW -> {
				if (stage) {
					yield CompletableFuture.failedFuture(refused);
				}
				throw refused;
			}
			case SKIP -> stage ? CompletableFuture.completedFuture(null) : skipped(operation);
			case FALLBACK -> fallback(invocation, operation, refused);
		};
	}

	private static @Nullable Object skipped(RateLimitOperation operation) {
		return (operation.method().getReturnType() == Optional.class) ? Optional.empty() : null;
	}

	private static @Nullable Object fallback(MethodInvocation invocation, RateLimitOperation operation,
			RateLimitExceededException refused) throws Throwable {
		Object target = invocation.getThis();
		if (operation.fallback() == null || target == null) {
			throw refused;
		}
		return operation.fallback().invoke(target, invocation.getArguments(), refused);
	}

	private static RateLimitExceededException refusal(DistributedRateLimiter limiter, RateLimitDecision decision) {
		return new RateLimitExceededException(limiter.getName(), limiter.getLimit(), decision.retryAfter());
	}

	/** Kept apart so that Reactor is loaded only for methods that return its types. */
	private static final class ReactorDelegate {

		static @Nullable Object perSubscription(MethodInvocation invocation, RateLimitOperation operation,
				DistributedRateLimiter limiter,
				java.util.function.BiFunction<RateLimitOperation, RateLimitDecision, RateLimitDecision> decided)
				throws Throwable {
			Object result = invocation.proceed();
			if (result == null) {
				return null;
			}
			if (operation.shape() == RateLimitOperation.Shape.SUSPEND) {
				// Spring bridges a suspend call to a Mono of its result, and awaits what the advice returns.
				return decide(operation, limiter, decided)
					.flatMap(decision -> Mono.from(after(decision, (Publisher<?>) result, invocation, operation, limiter)));
			}
			Mono<RateLimitDecision> decide = decide(operation, limiter, decided);
			if (operation.shape() == RateLimitOperation.Shape.MONO) {
				Mono<?> mono = (Mono<?>) result;
				return decide.flatMap(decision -> Mono.from(after(decision, mono, invocation, operation, limiter)));
			}
			Flux<?> flux = (Flux<?>) result;
			return decide.flatMapMany(decision -> after(decision, flux, invocation, operation, limiter));
		}

		private static Mono<RateLimitDecision> decide(RateLimitOperation operation, DistributedRateLimiter limiter,
				java.util.function.BiFunction<RateLimitOperation, RateLimitDecision, RateLimitDecision> decided) {
			return Mono.defer(() -> Mono.fromFuture(limiter.decideAsync(operation.cost(), operation.waitTime())))
				.map(decision -> decided.apply(operation, decision));
		}

		private static Flux<?> after(RateLimitDecision decision, Publisher<?> source, MethodInvocation invocation,
				RateLimitOperation operation, DistributedRateLimiter limiter) {
			if (decision.granted()) {
				Duration wait = decision.delay();
				// Never on the Redis I/O thread that completed the decision: the method's publisher may block.
				Flux<?> run = Flux.from(source).subscribeOn(Schedulers.boundedElastic());
				return wait.isZero() ? run : Mono.delay(wait).thenMany(run);
			}
			RateLimitExceededException refused = refusal(limiter, decision);
			return switch (operation.onLimit()) {
				case THROW -> Flux.error(refused);
				case SKIP -> Flux.empty();
				case FALLBACK -> {
					try {
						Object fallback = fallback(invocation, operation, refused);
						yield (fallback != null) ? Flux.from((Publisher<?>) fallback) : Flux.empty();
					}
					catch (Throwable ex) {
						yield Flux.error(ex);
					}
				}
			};
		}

	}

}
