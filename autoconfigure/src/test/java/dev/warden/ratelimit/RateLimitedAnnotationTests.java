package dev.warden.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.WardenApplications;
import dev.warden.autoconfigure.WardenMetricsAutoConfiguration;
import dev.warden.autoconfigure.WardenRateLimitAutoConfiguration;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.ratelimit.annotation.OnRateLimit;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.test.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static dev.warden.StartupFailures.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RateLimited} on bean methods of every shape it takes, through the real auto-configuration
 * and a real Redis; and the startup failures of annotations it cannot honour.
 */
class RateLimitedAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withConfiguration(AutoConfigurations.of(WardenRateLimitAutoConfiguration.class))
		.withPropertyValues("payments.rate=2");

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@Test
	void aCallBeyondTheLimitThrowsWithTheRetryAfterAndTheMethodDoesNotRun() {
		runner.withUserConfiguration(Services.class).run(context -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(payments.charge("alice")).isEqualTo("charged alice");
			assertThat(payments.charge("alice")).isEqualTo("charged alice");

			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> payments.charge("alice"))
				.satisfies(refused -> {
					assertThat(refused.getLimiter()).isEqualTo("payments:alice");
					assertThat(refused.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
				});
			assertThat(payments.charge("bob")).as("another key, another limiter").isEqualTo("charged bob");
			assertThat(context.getBean(Calls.class).made).containsExactly("alice", "alice", "bob");
		});
	}

	@Test
	void callsAreCountedByTheLimitersNameNeverByKey() {
		runner.withConfiguration(AutoConfigurations.of(WardenMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withUserConfiguration(Services.class)
			.run(context -> {
				Payments payments = context.getBean(Payments.class);
				payments.charge("carol");
				payments.charge("carol");
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> payments.charge("carol"));
				payments.patient("w");

				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("warden.ratelimit.calls").tags("name", "payments", "outcome", "permitted")
					.counter()
					.count()).isEqualTo(2);
				assertThat(registry.get("warden.ratelimit.calls").tags("name", "payments", "outcome", "limited")
					.counter()
					.count()).isEqualTo(1);
				assertThat(registry.get("warden.ratelimit.wait").tags("name", "patient").timer().count()).isEqualTo(1);
				assertThat(registry.find("warden.ratelimit.calls").tag("name", "payments:carol").counters()).isEmpty();
			});
	}

	@Test
	void skipAndFallbackInsteadOfThrowing() {
		runner.withUserConfiguration(Services.class).run(context -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(payments.quote("q")).contains("quote q");
			assertThat(payments.quote("q")).isEmpty();
			assertThat(payments.refund("r")).isEqualTo("refunded r");
			assertThat(payments.refund("r")).startsWith("later r, retry in ");
		});
	}

	@Test
	void aCallThatMayWaitGetsItsReservedPermit() {
		runner.withUserConfiguration(Services.class).run(context -> {
			Payments payments = context.getBean(Payments.class);
			List<String> done = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				done.add(payments.patient("p" + i));
			}
			assertThat(done).containsExactly("p0", "p1", "p2");
		});
	}

	@Test
	void aFutureMethodFailsItsFutureAndReactiveMethodsTakePermitsPerSubscription() {
		runner.withUserConfiguration(Services.class).run(context -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(payments.async("a").get(5, TimeUnit.SECONDS)).isEqualTo("async a");
			CompletableFuture<String> refused = payments.async("a");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> refused.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(RateLimitExceededException.class);

			Mono<String> mono = payments.mono("m");
			assertThat(context.getBean(Calls.class).made).as("nothing taken before a subscription").doesNotContain("m");
			assertThat(mono.block(Duration.ofSeconds(5))).isEqualTo("mono m");
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> mono.block(Duration.ofSeconds(5)));

			Flux<String> flux = payments.flux("f");
			assertThat(flux.collectList().block(Duration.ofSeconds(5))).containsExactly("f", "f");
			assertThat(flux.collectList().block(Duration.ofSeconds(5))).as("skipped: empty").isEmpty();
		});
	}

	@Test
	void theLimitSitsOutsideTheLock() {
		runner.withUserConfiguration(Services.class).run(context -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(payments.lockedAndLimited("x")).isEqualTo("x");
			dev.warden.lock.DistributedReentrantLock lock = context.getBean(dev.warden.Warden.class)
				.getLock("warden:lock:ledger:x");
			dev.warden.lock.LockOwner elsewhere = context.getBean(dev.warden.Warden.class).newOwner();
			assertThat(lock.tryLock(elsewhere, 0, 30, TimeUnit.SECONDS)).isTrue();

			assertThatExceptionOfType(RateLimitExceededException.class)
				.as("refused by the limit before it waits for the lock")
				.isThrownBy(() -> payments.lockedAndLimited("x"));
			lock.unlock(elsewhere);
		});
	}

	@Test
	void aCallWhoseTransactionRollsBackHasSpentItsPermit() {
		runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:rate-limited-ledger", "spring.datasource.username=sa")
			.withUserConfiguration(LedgerConfiguration.class)
			.run(context -> {
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				jdbc.execute("create table entry (name varchar(20))");
				Ledger ledger = context.getBean(Ledger.class);

				assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ledger.record("a", true));
				assertThat(jdbc.queryForObject("select count(*) from entry", Integer.class)).as("rolled back").isZero();
				// The limit counts calls, outside the transaction: the rolled-back call used the one permit.
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> ledger.record("b", false));
				assertThat(jdbc.queryForObject("select count(*) from entry", Integer.class)).isZero();
			});
	}

	@Test
	void annotationsThatCannotBeHonouredFailStartupNamingTheMethod() {
		runner.withUserConfiguration(BadKey.class).run(context -> assertStartupFailure(context,
				"Invalid @RateLimited on bean", "BadKey$Service.call(String)", "#nope"));
		runner.withUserConfiguration(BadPermits.class).run(context -> assertStartupFailure(context,
				"@RateLimited on", "BadPermits.call", "permits 'many'", "not a whole number"));
		runner.withUserConfiguration(MissingPlaceholder.class).run(context -> assertStartupFailure(context,
				"MissingPlaceholder.call", "permits '${no.such.rate}'"));
		runner.withUserConfiguration(CostOverBurst.class).run(context -> assertStartupFailure(context,
				"CostOverBurst.call", "cost 5", "from 1 to 2 permits"));
		runner.withUserConfiguration(MissingFallback.class).run(context -> assertStartupFailure(context,
				"MissingFallback.call", "Fallback method 'nowhere'", "RateLimitExceededException"));
		runner.withUserConfiguration(SkipPrimitive.class).run(context -> assertStartupFailure(context,
				"SkipPrimitive.call", "onLimit = SKIP but returns int"));
		runner.withUserConfiguration(PlainFuture.class).run(context -> assertStartupFailure(context,
				"PlainFuture.call", "java.util.concurrent.Future", "plain, CompletionStage, Mono and Flux"));
		runner.withUserConfiguration(SelfCalling.class).run(context -> assertStartupFailure(context,
				"its own @RateLimited", "runs without its rate limit"));
	}

	@Configuration(proxyBeanMethods = false)
	static class LedgerConfiguration {

		@Bean
		Ledger ledger(JdbcTemplate jdbc) {
			return new Ledger(jdbc);
		}

	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		Ledger(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@RateLimited(name = "ledger", permits = "1", period = "1h")
		@Transactional
		public void record(String name, boolean fail) {
			jdbc.update("insert into entry (name) values (?)", name);
			if (fail) {
				throw new IllegalStateException("rolled back");
			}
		}

	}

	/** What the limited methods did: a bean of its own, since theirs is a proxy. */
	static class Calls {

		final List<String> made = new java.util.concurrent.CopyOnWriteArrayList<>();

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Calls calls() {
			return new Calls();
		}

		@Bean
		Payments payments(Calls calls) {
			return new Payments(calls);
		}

	}

	static class Payments {

		private final Calls calls;

		Payments(Calls calls) {
			this.calls = calls;
		}

		@RateLimited(name = "payments", key = "#customer", permits = "${payments.rate}", period = "1m")
		public String charge(String customer) {
			calls.made.add(customer);
			return "charged " + customer;
		}

		@RateLimited(name = "quotes", permits = "1", period = "1m", onLimit = OnRateLimit.SKIP)
		public Optional<String> quote(String id) {
			return Optional.of("quote " + id);
		}

		@RateLimited(name = "refunds", permits = "1", period = "1m", onLimit = OnRateLimit.FALLBACK,
				fallbackMethod = "later")
		public String refund(String id) {
			return "refunded " + id;
		}

		String later(String id, RateLimitExceededException refused) {
			return "later " + id + ", retry in " + refused.getRetryAfter().toMillis() + " ms";
		}

		@RateLimited(name = "patient", permits = "20", period = "1s", burst = "1", waitTime = "2s")
		public String patient(String id) {
			return id;
		}

		@RateLimited(name = "async", permits = "1", period = "1m")
		public CompletableFuture<String> async(String id) {
			return CompletableFuture.completedFuture("async " + id);
		}

		@RateLimited(name = "mono", permits = "1", period = "1m")
		public Mono<String> mono(String id) {
			return Mono.fromCallable(() -> {
				calls.made.add(id);
				return "mono " + id;
			});
		}

		@RateLimited(name = "flux", permits = "1", period = "1m", onLimit = OnRateLimit.SKIP)
		public Flux<String> flux(String id) {
			return Flux.just(id, id);
		}

		@RateLimited(name = "ledger", key = "#id", permits = "1", period = "1m")
		@DistributedLock(name = "ledger", key = "#id", waitTime = 30_000)
		public String lockedAndLimited(String id) {
			return id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKey {

		@Bean
		BadKey.Service service() {
			return new Service();
		}

		static class Service {

			@RateLimited(key = "#nope", permits = "1")
			public void call(String id) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadPermits {

		@Bean
		BadPermits badPermitsService() {
			return new BadPermits();
		}

		@RateLimited(permits = "many")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingPlaceholder {

		@Bean
		MissingPlaceholder missingPlaceholderService() {
			return new MissingPlaceholder();
		}

		@RateLimited(permits = "${no.such.rate}")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CostOverBurst {

		@Bean
		CostOverBurst costOverBurstService() {
			return new CostOverBurst();
		}

		@RateLimited(permits = "10", burst = "2", cost = 5)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingFallback {

		@Bean
		MissingFallback missingFallbackService() {
			return new MissingFallback();
		}

		@RateLimited(permits = "1", onLimit = OnRateLimit.FALLBACK, fallbackMethod = "nowhere")
		public String call() {
			return "";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SkipPrimitive {

		@Bean
		SkipPrimitive skipPrimitiveService() {
			return new SkipPrimitive();
		}

		@RateLimited(permits = "1", onLimit = OnRateLimit.SKIP)
		public int call() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainFuture {

		@Bean
		PlainFuture plainFutureService() {
			return new PlainFuture();
		}

		@RateLimited(permits = "1")
		public Future<String> call() {
			return CompletableFuture.completedFuture("");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SelfCalling {

		@Bean
		SelfCalling.Service selfCallingService() {
			return new Service();
		}

		static class Service {

			public String outer() {
				return limited();
			}

			@RateLimited(permits = "1")
			public String limited() {
				return "";
			}

		}

	}

}
