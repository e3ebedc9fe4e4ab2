package dev.warden.lock.interceptor;

import dev.warden.lock.spi.LockSet;
import dev.warden.lock.spi.LockedCall;
import dev.warden.lock.spi.LockedReturnTypeHandler;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor {@code Mono} and {@code Flux} methods: each subscription acquires the locks without
 * blocking, for an owner of its own, and holds them until the terminal signal or cancellation.
 * <p>
 * The method's publisher is subscribed on {@link Schedulers#boundedElastic()}, never on the Redis
 * I/O thread that completed the acquisition, so it may block (even on Warden itself). A
 * subscription cancelled while its acquisition completes gives the locks back. Registered only
 * when Reactor is on the classpath.
 */
public final class ReactorHandler implements LockedReturnTypeHandler {

	@Override
	public boolean canHandleReturnType(Class<?> returnType) {
		return Mono.class.isAssignableFrom(returnType) || Flux.class.isAssignableFrom(returnType);
	}

	@Override
	public @Nullable Object handle(LockedCall call) throws Throwable {
		Object result = call.proceed();
		if (result == null) {
			return null;
		}
		if (result instanceof Mono<?> mono) {
			return Mono.defer(() -> {
				LockSet locks = call.newLockSet();
				return Mono.usingWhen(acquire(locks), acquired -> Mono.from(underLock(acquired, mono, call, locks)),
						acquired -> release(acquired, locks), (acquired, error) -> release(acquired, locks),
						acquired -> release(acquired, locks));
			});
		}
		Flux<?> flux = (Flux<?>) result;
		return Flux.defer(() -> {
			LockSet locks = call.newLockSet();
			return Flux.usingWhen(acquire(locks), acquired -> underLock(acquired, flux, call, locks),
					acquired -> release(acquired, locks), (acquired, error) -> release(acquired, locks),
					acquired -> release(acquired, locks));
		});
	}

	private static Mono<Boolean> acquire(LockSet locks) {
		// A cancellation that races the completed acquisition makes Reactor discard the result:
		// the locks it stands for must not be left held.
		return Mono.fromFuture(locks::acquireAsync).doOnDiscard(Boolean.class, acquired -> {
			if (acquired) {
				locks.releaseAsync();
			}
		});
	}

	private static Flux<?> underLock(boolean acquired, Publisher<?> source, LockedCall call, LockSet locks) {
		return Flux.from(acquired ? source : onFailure(call, locks)).subscribeOn(Schedulers.boundedElastic());
	}

	private static Publisher<?> onFailure(LockedCall call, LockSet locks) {
		return switch (call.onFailure()) {
			case THROW -> Mono.error(locks.failure());
			case SKIP -> Mono.empty();
			case FALLBACK -> {
				try {
					Object fallback = call.fallback(locks.failure());
					yield (fallback != null) ? (Publisher<?>) fallback : Mono.empty();
				}
				catch (Throwable ex) {
					yield Mono.error(ex);
				}
			}
		};
	}

	private static Mono<Void> release(boolean acquired, LockSet locks) {
		return acquired ? Mono.fromFuture(locks::releaseAsync) : Mono.empty();
	}

}
