package dev.warden.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.ratelimit.RateLimit;
import dev.warden.test.redis.RedisNode;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Rate limiters of three libraries on one Redis: Warden's {@code DistributedRateLimiter}, Redisson's
 * {@code RRateLimiter} and Bucket4j's Lettuce proxy manager. Each makes decisions with 64 threads on
 * one hot key and on 10,000 keys (decisions per second, Redis and client CPU per decision), and two
 * clients of 8 threads each share one limit of 100 a second with 20 at once (the permits granted
 * against rate × time + burst: at most 100 %).
 */
final class RateLimitScenarios {

	static final String WARDEN = "Warden";

	static final String REDISSON = "Redisson";

	static final String BUCKET4J = "Bucket4j";

	private static final int THREADS = 64;

	private static final int MAX_KEYS = 10_000;

	private final RedisNode redis;

	private final long runNanos;

	/** 10,000, fewer for a short run: each key's limiter is made before the run. */
	private final int keys;

	RateLimitScenarios(RedisNode redis, long runMillis) {
		this.redis = redis;
		this.runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis);
		this.keys = (int) Math.min(MAX_KEYS, Math.max(100, runMillis * 5));
	}

	/** One library's limiters, by key, all of one rate. */
	private interface Limiters extends AutoCloseable {

		boolean tryAcquire(String key);

		@Override
		void close();

	}

	/** Makes a library's limiters of {@code permits} per {@code period}, {@code burst} at once. */
	private interface Library {

		Limiters open(long permits, Duration period, long burst);

	}

	void decide(Report report, int repetition) throws Exception {
		List<String> order = List.of(WARDEN, REDISSON, BUCKET4J);
		for (int i = 0; i < order.size(); i++) {
			String label = order.get((i + repetition) % order.size());
			Library library = library(label);
			try (Limiters hot = library.open(1000, Duration.ofSeconds(1), 100)) {
				measure(report, label, "64 threads, one key", hot, thread -> "bench-rate-hot");
			}
			redis.call("FLUSHALL");
			try (Limiters many = library.open(1000, Duration.ofSeconds(1), 100)) {
				// Every key's limiter is made once before the run (Redisson sets each one's rate).
				for (int key = 0; key < keys; key++) {
					many.tryAcquire("bench-rate-" + key);
				}
				measure(report, label, "64 threads, " + String.format(java.util.Locale.ROOT, "%,d", keys) + " keys", many,
						thread -> "bench-rate-" + ThreadLocalRandom.current().nextInt(keys));
			}
			redis.call("FLUSHALL");
			accuracy(report, label, library);
			redis.call("FLUSHALL");
		}
	}

	private void measure(Report report, String label, String scenario, Limiters limiters,
			Function<Integer, String> key) throws Exception {
		run(limiters, key, THREADS, runNanos / 4);
		RedisCounters before = RedisCounters.read(redis);
		ClientCounters client = ClientCounters.read(ClientCounters.ioThreadPrefix(label));
		long start = System.nanoTime();
		long[] counts = run(limiters, key, THREADS, runNanos);
		double seconds = (System.nanoTime() - start) / 1e9;
		ClientCounters.Delta used = ClientCounters.read(ClientCounters.ioThreadPrefix(label)).since(client);
		RedisCounters after = RedisCounters.read(redis);
		long decisions = counts[0];
		report.add(new Metric("rate limit, " + scenario + ": decisions/s", true), label, decisions / seconds);
		report.add(new Metric("rate limit, " + scenario + ": Redis commands per decision", false), label,
				after.commandsPer(before, decisions));
		report.add(new Metric("rate limit, " + scenario + ": Redis CPU per decision (µs)", false), label,
				after.cpuMicrosPer(before, decisions));
		report.add(new Metric("rate limit, " + scenario + ": client CPU per decision (µs)", false), label,
				used.cpuMicrosPer(decisions));
	}

	/** Two clients of 8 threads on one limit of 100 a second, 20 at once. */
	private void accuracy(Report report, String label, Library library) throws Exception {
		try (Limiters first = library.open(100, Duration.ofSeconds(1), 20);
				Limiters second = library.open(100, Duration.ofSeconds(1), 20)) {
			AtomicLong granted = new AtomicLong();
			long startMicros = redisMicros();
			ExecutorService pool = Executors.newFixedThreadPool(16);
			try {
				long deadline = System.nanoTime() + runNanos;
				List<Future<?>> callers = new ArrayList<>();
				for (int thread = 0; thread < 16; thread++) {
					Limiters limiters = (thread % 2 == 0) ? first : second;
					callers.add(pool.submit(() -> {
						while (System.nanoTime() - deadline < 0) {
							if (limiters.tryAcquire("bench-rate-shared")) {
								granted.incrementAndGet();
							}
						}
						return null;
					}));
				}
				for (Future<?> caller : callers) {
					caller.get();
				}
			}
			finally {
				pool.shutdownNow();
			}
			double seconds = (redisMicros() - startMicros) / 1e6;
			report.add(new Metric("rate limit, 2 clients x 8 threads, 100/s + 20: granted / (rate × time + burst) (%)",
					true), label, 100 * granted.get() / (100 * seconds + 20));
		}
	}

	private static long[] run(Limiters limiters, Function<Integer, String> key, int threads, long nanos)
			throws Exception {
		long calls = Alternation.calls(thread -> limiters.tryAcquire(key.apply(thread)), threads, nanos);
		return new long[] { calls };
	}

	private long redisMicros() {
		List<?> time = (List<?>) redis.call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

	private Library library(String label) {
		return switch (label) {
			case WARDEN -> this::warden;
			case REDISSON -> this::redisson;
			default -> this::bucket4j;
		};
	}

	private Limiters warden(long permits, Duration period, long burst) {
		RedisClient client = RedisClient.create(redis.uri());
		Warden warden = Warden.builder(client).build();
		RateLimit limit = RateLimit.of(permits, period).withBurst(burst);
		Map<String, dev.warden.ratelimit.DistributedRateLimiter> limiters = new ConcurrentHashMap<>();
		return new Limiters() {
			@Override
			public boolean tryAcquire(String key) {
				return limiters.computeIfAbsent(key, name -> warden.getRateLimiter(name, limit)).tryAcquire();
			}

			@Override
			public void close() {
				warden.close();
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		};
	}

	/**
	 * Redisson's limiter has no burst of its own: at most {@code rate} permits in any window of its
	 * interval. The burst is the rate, over the period the burst lasts at that rate.
	 */
	private Limiters redisson(long permits, Duration period, long burst) {
		Config config = Transport.redissonConfig();
		config.useSingleServer().setAddress(redis.uri());
		RedissonClient redisson = Redisson.create(config);
		Duration window = period.multipliedBy(burst).dividedBy(permits);
		Map<String, RRateLimiter> limiters = new ConcurrentHashMap<>();
		return new Limiters() {
			@Override
			public boolean tryAcquire(String key) {
				return limiters.computeIfAbsent(key, name -> {
					RRateLimiter limiter = redisson.getRateLimiter(name);
					limiter.trySetRate(RateType.OVERALL, burst, window, Duration.ofSeconds(10));
					return limiter;
				}).tryAcquire();
			}

			@Override
			public void close() {
				redisson.shutdown();
			}
		};
	}

	private Limiters bucket4j(long permits, Duration period, long burst) {
		RedisClient client = RedisClient.create(redis.uri());
		StatefulRedisConnection<String, byte[]> connection = client
			.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
		ProxyManager<String> buckets = Bucket4jLettuce.casBasedBuilder(connection)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = BucketConfiguration.builder()
			.addLimit(Bandwidth.builder().capacity(burst).refillGreedy(permits, period).build())
			.build();
		Map<String, io.github.bucket4j.distributed.BucketProxy> limiters = new ConcurrentHashMap<>();
		return new Limiters() {
			@Override
			public boolean tryAcquire(String key) {
				return limiters.computeIfAbsent(key, name -> buckets.builder().build(name, () -> configuration))
					.tryConsume(1);
			}

			@Override
			public void close() {
				connection.close();
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		};
	}

}
