package dev.warden.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Rate limiters on a real Redis, shared by independent clients: the burst, the rate, reserved
 * waits, a rate changed on a live limiter, bounded memory, and a restart with AOF.
 */
class RateLimiterTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension(RedisNode.config().appendOnly(true));

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newFixedThreadPool(16);

	@BeforeEach
	void flush() {
		redis.node().call("FLUSHALL");
	}

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void aFullLimiterGrantsItsBurstThenRefusesSayingWhenTheNextPermitComes() {
		DistributedRateLimiter limiter = clients.open(redis.node())
			.getRateLimiter("burst", RateLimit.of(10, Duration.ofSeconds(10)).withBurst(5));

		assertThat(limiter.availablePermits()).isEqualTo(5);
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire()).as("permit %s of the burst", i + 1).isTrue();
		}
		RateLimitDecision refused = limiter.decide(1, Duration.ZERO);

		assertThat(refused.granted()).isFalse();
		// One permit a second: the calls above and below come within that on a loaded machine.
		assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(limiter.timeUntilAvailable(1)).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(limiter.timeUntilAvailable(3)).isGreaterThan(Duration.ofSeconds(2))
			.isLessThanOrEqualTo(Duration.ofSeconds(3));
		assertThat(limiter.availablePermits()).isZero();
		assertThat(limiter.reset()).isTrue();
		assertThat(limiter.tryAcquire(5)).isTrue();
	}

	@Test
	void aCallerThatAcceptsAWaitReservesItsPermitsAndWaitsExactlyTheirTime() throws Exception {
		DistributedRateLimiter limiter = clients.open(redis.node())
			.getRateLimiter("reserve", RateLimit.of(2, Duration.ofSeconds(1)).withBurst(1));
		assertThat(limiter.tryAcquire()).isTrue();

		// One interval is 500 ms: long enough that the next calls come within it on a loaded machine.
		RateLimitDecision reserved = limiter.decide(1, Duration.ofSeconds(1));
		assertThat(reserved.granted()).isTrue();
		assertThat(reserved.delay()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500));
		RateLimitDecision next = limiter.decide(1, Duration.ofSeconds(1));
		assertThat(next.delay()).as("behind the reserved one").isGreaterThan(reserved.delay());
		assertThat(limiter.decide(1, Duration.ofMillis(50)).granted()).as("further than 50 ms away").isFalse();

		long started = System.nanoTime();
		assertThat(limiter.tryAcquire(1, Duration.ofSeconds(3))).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("slept until its permit's time")
			.isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(limiter.tryAcquireAsync(1, Duration.ZERO).get(5, TimeUnit.SECONDS)).isFalse();
	}

	@Test
	void twoClientsOfEightThreadsGetTheRateAndTheBurstAndNeverMore() throws Exception {
		RateLimit limit = RateLimit.of(100, Duration.ofSeconds(1)).withBurst(20);
		List<DistributedRateLimiter> limiters = List.of(clients.open(redis.node()).getRateLimiter("shared", limit),
				clients.open(redis.node()).getRateLimiter("shared", limit));
		AtomicLong granted = new AtomicLong();
		long runNanos = TimeUnit.SECONDS.toNanos(5);
		long startMicros = redisMicros();
		long start = System.nanoTime();
		List<Future<?>> callers = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			DistributedRateLimiter limiter = limiters.get(i % 2);
			callers.add(threads.submit(() -> {
				while (System.nanoTime() - start < runNanos) {
					if (limiter.tryAcquire()) {
						granted.incrementAndGet();
					}
				}
			}));
		}
		for (Future<?> caller : callers) {
			caller.get(30, TimeUnit.SECONDS);
		}
		double seconds = (redisMicros() - startMicros) / 1e6;

		double allowed = 100 * seconds + 20;
		System.out.printf("Rate limiter accuracy: %d granted over %.3f s by Redis's clock, %.1f %% of 100/s x time + 20%n",
				granted.get(), seconds, 100 * granted.get() / allowed);
		assertThat((double) granted.get()).as("granted over %.2f s", seconds)
			.isLessThanOrEqualTo(allowed)
			.isGreaterThanOrEqualTo(0.95 * allowed);
	}

	@Test
	void aRateChangedOnALiveLimiterKeepsThePermitsInUse() {
		Warden warden = clients.open(redis.node());
		// One permit every 10 s, then every second: seconds, so that the calls come within them.
		DistributedRateLimiter slow = warden.getRateLimiter("changing", RateLimit.of(1, Duration.ofSeconds(10))
			.withBurst(10));
		assertThat(slow.tryAcquire(10)).isTrue();

		DistributedRateLimiter fast = warden.getRateLimiter("changing", RateLimit.of(1, Duration.ofSeconds(1))
			.withBurst(10));

		assertThat(fast.availablePermits()).as("the ten in use are still in use").isZero();
		assertThat(fast.tryAcquire()).isFalse();
		assertThat(fast.timeUntilAvailable(1)).as("one comes ten times sooner").isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(slow.timeUntilAvailable(1)).isGreaterThan(Duration.ofSeconds(5));
	}

	@Test
	void aLimiterUsedAtALowerRateKeepsItsPermitsInUseUntilThatRateGivesThemBack() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedRateLimiter fast = warden.getRateLimiter("slowing", RateLimit.of(100, Duration.ofSeconds(1)));
		assertThat(fast.tryAcquire(100)).isTrue();
		long takenAt = redisMicros();

		DistributedRateLimiter slow = warden.getRateLimiter("slowing", RateLimit.of(10, Duration.ofSeconds(1)));
		Duration promised = slow.timeUntilAvailable(1);
		assertThat(promised).as("the hundred in use, at 10/s").isGreaterThan(Duration.ofSeconds(8));
		assertThat(slow.tryAcquire()).isFalse();
		assertThat((Long) redis.node().call("PTTL", "warden:rate:{slowing}"))
			.as("the key lives as long as the permits it holds at the rate last used")
			.isGreaterThan(promised.toMillis() - 1_000);

		// At 100/s the permits were all back after one second; at 10/s nothing is back yet.
		long oneSecondOn = takenAt + 1_200_000;
		for (int i = 0; i < 100 && redisMicros() < oneSecondOn; i++) {
			Thread.sleep(25);
		}
		assertThat(redisMicros()).isGreaterThanOrEqualTo(oneSecondOn);
		assertThat(slow.tryAcquire()).as("no permit is back before the lower rate gives one back").isFalse();
		assertThat(slow.availablePermits()).isZero();
	}

	@Test
	void aHundredThousandNamesLeaveNoKeyOnceTheirLimitersAreFull() throws Exception {
		DistributedRateLimiter[] limiters = new DistributedRateLimiter[100_000];
		Warden warden = clients.open(redis.node());
		RateLimit limit = RateLimit.of(1000, Duration.ofSeconds(1)).withBurst(10);
		List<CompletableFuture<RateLimitDecision>> decisions = new ArrayList<>(limiters.length);
		for (int i = 0; i < limiters.length; i++) {
			limiters[i] = warden.getRateLimiter("user-" + i, limit);
			decisions.add(limiters[i].decideAsync(1, Duration.ZERO));
			if (decisions.size() % 5_000 == 0) {
				// In batches, so that no call waits behind so many that its command timeout runs out.
				decisions.get(decisions.size() - 1).get(60, TimeUnit.SECONDS);
			}
		}
		CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(decisions).allMatch(decision -> decision.join().granted());

		Eventually.await("every limiter's key expired once it was full again",
				() -> WardenClients.keysBesidesTheFleet(redis.node()) == 0L);
	}

	@Test
	void aLimiterStaysSpentAcrossARestartWithAppendOnly() {
		DistributedRateLimiter limiter = clients.open(redis.node())
			.getRateLimiter("durable", RateLimit.of(10, Duration.ofMinutes(10)));
		assertThat(limiter.tryAcquire(10)).isTrue();

		redis.node().restart();

		DistributedRateLimiter after = clients.open(redis.node())
			.getRateLimiter("durable", RateLimit.of(10, Duration.ofMinutes(10)));
		assertThat(after.tryAcquire()).isFalse();
		assertThat(after.timeUntilAvailable(1)).as("one interval, 60 s").isGreaterThan(Duration.ofSeconds(50));
		assertThat(after.timeUntilAvailable(10)).as("ten intervals").isGreaterThan(Duration.ofMinutes(9));
	}

	@Test
	void badRequestsFailAtOnce() {
		DistributedRateLimiter limiter = clients.open(redis.node())
			.getRateLimiter("bad", RateLimit.of(10, Duration.ofSeconds(1)).withBurst(5));

		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire(6)).withMessageContaining("1 to 5");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire(0));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.decide(1, Duration.ofSeconds(-1)));
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(0, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(10_000_000, Duration.ofSeconds(1)))
			.withMessageContaining("less than a microsecond apart");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(1, Duration.ofSeconds(1)).withBurst(0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> clients.open(redis.node()).getRateLimiter("a{b}", RateLimit.of(1, Duration.ofSeconds(1))));
	}

	private static long redisMicros() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

}
