package dev.warden.lock.annotation;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.warden.Eventually;
import dev.warden.RedisChannels;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.WardenClients;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.annotation.LockedServices.Order;
import dev.warden.lock.annotation.LockedServices.OrderService;
import dev.warden.lock.annotation.LockedServices.Probe;
import dev.warden.lock.annotation.LockedServices.WholeService;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import static dev.warden.StartupFailures.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DistributedLockAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WardenApplications.REDIS_AUTO_CONFIGURATION, AopAutoConfiguration.class,
				WardenAutoConfiguration.class, WardenLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
				"spring.data.redis.port=" + redis.node().port(), "warden.lock.key-prefix=test:");

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void keysComeFromParametersPositionsPropertiesRootAndBeans() {
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.byName(7)).isTrue();
			assertThat(orders.byPosition(8)).isTrue();
			assertThat(orders.byProperty(new Order("sku-1", 1))).isTrue();
			assertThat(orders.byRootAndBean()).isTrue();
			assertThat(orders.byDefaultName()).isTrue();
			assertThat(redis.node().call("KEYS", "test:*")).asList().isEmpty();
		});
	}

	@Test
	void severalKeysAreOneAllOrNothingLock() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:transfer:b");
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.transfer("a", "b")).containsExactly(true, true);
			assertThat(orders.batch(List.of("x", "y", "z"))).isTrue();

			heldElsewhere.lock();
			int runs = orders.runs;
			assertThatThrownBy(() -> orders.transfer("a", "b")).isInstanceOf(LockAcquisitionException.class)
				.hasMessageContaining("'test:transfer:a', 'test:transfer:b'");
			assertThat(orders.runs).isEqualTo(runs);
			assertThat(redis.node().call("EXISTS", "test:transfer:a")).isEqualTo(0L);
			heldElsewhere.unlock();
		});
	}

	@Test
	void failureStrategies() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:orders:1");
		heldElsewhere.lock();
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatThrownBy(() -> orders.throwing("1")).isInstanceOf(LockAcquisitionException.class)
				.hasMessage("Could not acquire lock 'test:orders:1' within 0 ms");
			assertThat(orders.skipped("1")).isNull();
			assertThat(orders.skippedOptional("1")).isEqualTo(Optional.empty());
			assertThat(orders.runs).isZero();
			assertThat(orders.withFallback("1")).isEqualTo("busy 1");
			assertThat(orders.withFallbackException("1")).isEqualTo("[test:orders:1]");

			assertThat(orders.skipped("2")).isEqualTo("ran");
			assertThat(orders.withFallback("2")).isEqualTo("ran");
		});
		heldElsewhere.unlock();
	}

	@Test
	void waitsForTheLockUpToTheAnnotatedWait() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:orders:w");
		heldElsewhere.lock();
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			Future<Boolean> call = threads.submit(() -> orders.waiting("w"));
			RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{test:orders:w}", 1);
			heldElsewhere.unlock();
			assertThat(call.get(5, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void leaseTimeIsTheHoldsTtl() {
		run(context -> assertThat(context.getBean(OrderService.class).leased("l")).isBetween(1L, 2_000L));
	}

	@Test
	void worksAsMetaAnnotationAndOnTypes() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:inventory:held");
		heldElsewhere.lock();
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.meta("free")).isEqualTo("held");
			assertThat(orders.meta("held")).isNull();
			WholeService whole = context.getBean(WholeService.class);
			assertThat(whole.first()).isTrue();
			assertThat(whole.second()).isTrue();
		});
		heldElsewhere.unlock();
	}

	@Test
	void nestedCallOnTheSameThreadReentersTheLock() {
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.outer("r", orders)).isTrue();
			assertThat(redis.node().call("EXISTS", "test:outer:r")).isEqualTo(0L);
		});
	}

	@Test
	void nullOrBlankKeyFailsAndTheMethodDoesNotRun() {
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> orders.throwing(null))
				.withMessageContaining("'#orderId'")
				.withMessageContaining("throwing(String)")
				.withMessageContaining("null");
			assertThatIllegalArgumentException().isThrownBy(() -> orders.throwing(" "))
				.withMessageContaining("blank");
			assertThat(orders.runs).isZero();
		});
	}

	@Test
	void completableFutureHoldsTheLockUntilItCompletes() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:async:busy");
		heldElsewhere.lock();
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			Warden warden = context.getBean(Warden.class);
			CompletableFuture<Boolean> completion = new CompletableFuture<>();
			CompletableFuture<Boolean> result = orders.async("c", completion);
			DistributedReentrantLock lock = warden.getLock("test:async:c");
			assertThat(lock.isLocked()).isTrue();
			assertThat(lock.isHeldByCurrentThread()).isFalse();

			threads.submit(() -> completion.complete(true)).get();
			assertThat(result.get(5, TimeUnit.SECONDS)).isTrue();
			Eventually.await("the lock released after completion", () -> !lock.isLocked());

			assertThat(orders.asyncSkipped("busy").get(5, TimeUnit.SECONDS)).isNull();
		});
		heldElsewhere.unlock();
	}

	@Test
	void cancellingOrTimingOutTheCallersFutureKeepsTheLockUntilTheMethodsWorkEnds() {
		DistributedReentrantLock other = clients.open(redis.node()).getLock("test:async:w");
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			DistributedReentrantLock lock = context.getBean(Warden.class).getLock("test:async:w");

			CompletableFuture<Boolean> work = new CompletableFuture<>();
			CompletableFuture<Boolean> cancelled = orders.async("w", work);
			assertThat(cancelled).as("the caller's own stage").isNotSameAs(work);
			assertThat(cancelled.cancel(true)).isTrue();
			assertThat(work).isNotDone();
			assertThat(other.tryLock()).as("held while the work runs, though the caller cancelled").isFalse();
			work.complete(true);
			Eventually.await("released once the work ended", () -> !lock.isLocked());

			CompletableFuture<Boolean> slowWork = new CompletableFuture<>();
			CompletableFuture<Boolean> timedOut = orders.async("w", slowWork).orTimeout(10, TimeUnit.MILLISECONDS);
			assertThatThrownBy(() -> timedOut.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);
			assertThat(other.tryLock()).as("held while the work runs, though the caller timed out").isFalse();
			slowWork.complete(false);
			Eventually.await("released once the work ended", () -> !lock.isLocked());

			CompletableFuture<Boolean> failingWork = new CompletableFuture<>();
			CompletableFuture<Boolean> failed = orders.async("w", failingWork);
			failingWork.completeExceptionally(new IllegalStateException("out of stock"));
			assertThat(failed.exceptionally(ex -> ex instanceof IllegalStateException).get(5, TimeUnit.SECONDS))
				.as("the caller sees the work's own exception").isTrue();
			Eventually.await("released once the work failed", () -> !lock.isLocked());
		});
	}

	@Test
	void monoAndFluxHoldTheLockFromSubscriptionToTheEnd() {
		DistributedReentrantLock heldElsewhere = clients.open(redis.node()).getLock("test:reactive:busy");
		heldElsewhere.lock();
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			DistributedReentrantLock lock = context.getBean(Warden.class).getLock("test:reactive:f");

			var mono = orders.mono("m");
			assertThat(redis.node().call("EXISTS", "test:reactive:m")).isEqualTo(0L);
			assertThat(mono.block()).isTrue();
			assertThat(redis.node().call("EXISTS", "test:reactive:m")).isEqualTo(0L);

			Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer();
			Flux<Integer> flux = orders.flux("f", sink.asFlux());
			assertThat(lock.isLocked()).isFalse();
			Disposable subscription = flux.subscribe();
			Eventually.await("the lock taken on subscription", lock::isLocked);
			subscription.dispose();
			Eventually.await("the lock released on cancellation", () -> !lock.isLocked());

			assertThat(orders.monoSkipped("busy").blockOptional()).isEmpty();
		});
		heldElsewhere.unlock();
	}

	@Test
	void cancellationRacingTheAcquisitionNeverLeavesTheLockHeld() {
		run(context -> {
			OrderService orders = context.getBean(OrderService.class);
			Warden warden = context.getBean(Warden.class);
			// A key per round: a cancelled acquisition that lands late must not hold up the next round.
			for (int i = 0; i < 50; i++) {
				DistributedReentrantLock lock = warden.getLock("test:reactive:race-" + i);
				Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer();
				Disposable subscription = orders.flux("race-" + i, sink.asFlux()).subscribe();
				if (i % 2 == 0) {
					// Half the time cancel as soon as possible, half the time once acquisition is under way.
					Thread.onSpinWait();
				}
				else {
					Eventually.await("lock taken", lock::isLocked);
				}
				subscription.dispose();
			}
			for (int i = 0; i < 50; i++) {
				DistributedReentrantLock lock = warden.getLock("test:reactive:race-" + i);
				Eventually.await("lock released after cancellation " + i, () -> !lock.isLocked());
			}
		});
	}

	@Test
	void invalidExpressionFailsStartupNamingMethodAndExpression() {
		runner.withUserConfiguration(BadExpression.class).run(context -> assertStartupFailure(context,
				"BadExpression$Service.call(String)", "'#id +'"));
	}

	@Test
	void unknownParameterFailsStartup() {
		runner.withUserConfiguration(UnknownParameter.class).run(context -> assertStartupFailure(context,
				"UnknownParameter$Service.call(String)", "#orderID", "known: a0, id, p0, root, this"));
	}

	@Test
	void missingOrMismatchedFallbackFailsStartup() {
		runner.withUserConfiguration(MissingFallback.class).run(context -> assertStartupFailure(context,
				"Fallback method 'nowhere'", "MissingFallback$Service.call(String)"));
		runner.withUserConfiguration(WrongFallback.class).run(context -> assertStartupFailure(context,
				"Fallback method 'other'", "expected a method other(String)"));
		runner.withUserConfiguration(FallbackWithoutStrategy.class).run(context -> assertStartupFailure(context,
				"names fallbackMethod 'other' but onFailure is THROW"));
		runner.withUserConfiguration(SkipPrimitive.class).run(context -> assertStartupFailure(context,
				"onFailure = SKIP but returns int"));
	}

	private void run(ThrowingConsumer consumer) {
		runner.withUserConfiguration(Services.class).run(context -> {
			assertThat(context).hasNotFailed();
			consumer.accept(context);
		});
	}

	@FunctionalInterface
	interface ThrowingConsumer {

		void accept(AssertableApplicationContext context) throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Probe probe(Warden warden) {
			return new Probe(warden);
		}

		@Bean
		OrderService orderService(Probe probe) {
			return new OrderService(probe);
		}

		@Bean
		WholeService wholeService(Probe probe) {
			return new WholeService(probe);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadExpression {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#id +")
			public void call(String id) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownParameter {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#orderID")
			public void call(String id) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingFallback {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#id", onFailure = OnLockFailure.FALLBACK,
					fallbackMethod = "nowhere")
			public String call(String id) {
				return id;
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrongFallback {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#id", onFailure = OnLockFailure.FALLBACK,
					fallbackMethod = "other")
			public String call(String id) {
				return id;
			}

			String other(int id) {
				return "";
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FallbackWithoutStrategy {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#id", fallbackMethod = "other")
			public String call(String id) {
				return id;
			}

			String other(String id) {
				return "";
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SkipPrimitive {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.warden.lock.annotation.DistributedLock(key = "#id", onFailure = OnLockFailure.SKIP)
			public int call(String id) {
				return 1;
			}

		}

	}


}
