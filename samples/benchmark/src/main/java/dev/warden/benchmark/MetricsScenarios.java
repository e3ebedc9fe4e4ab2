package dev.warden.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.expression.MethodExpressions;
import dev.warden.lock.LockListener;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.LockType;
import dev.warden.lock.interceptor.CompletionStageHandler;
import dev.warden.lock.interceptor.LockAspectSupport;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.lock.interceptor.LockInterceptor;
import dev.warden.lock.interceptor.LockOperationSource;
import dev.warden.metrics.WardenMetrics;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.aop.framework.ProxyFactory;

/**
 * What Warden's meters cost: {@code @DistributedLock} calls through the real interceptor, once
 * without meters and once with {@link WardenMetrics} on a {@link SimpleMeterRegistry}, in slices
 * that alternate on one client so both see the machine in the same state (the delayed-task rows,
 * with and without the task meters, are run by {@link DelayedTaskScenarios}). The columns are
 * {@value #OFF} and {@value #ON}.
 */
final class MetricsScenarios {

	static final String OFF = "metrics off";

	static final String ON = "metrics on";

	/** How many slices of each variant alternate in one measurement. */
	private static final int SLICES = 8;

	private final RedisNode redis;

	private final long runNanos;

	MetricsScenarios(RedisNode redis, long runMillis) {
		this.redis = redis;
		this.runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis);
	}

	/**
	 * Annotated lock calls per second: reentrant on own keys (1, 8, 64 threads) and on one key (8
	 * threads), simple on own keys and fair on one key (8 threads).
	 */
	void annotatedLocks(Report report) throws Exception {
		RedisClient client = RedisClient.create(redis.uri());
		try (Warden warden = Warden.create(client)) {
			MeterRegistry registry = new SimpleMeterRegistry();
			Stock off = proxy(warden, new LockCalls());
			LockCalls metered = new LockCalls(new WardenMetrics(registry, () -> 0,
					queue -> warden.getDelayedQueue(queue).stats(), Duration.ofSeconds(10)), ObservationRegistry.NOOP);
			Stock on = proxy(warden, metered);
			for (int threads : new int[] { 1, 8, 64 }) {
				alternate(report, threads + (threads == 1 ? " thread" : " threads") + ", own keys, @DistributedLock", threads,
						off::reserve, on::reserve, false);
			}
			alternate(report, "8 threads, one key, @DistributedLock", 8, off::reserve, on::reserve, true);
			alternate(report, "simple lock, 8 threads, own keys, @DistributedLock", 8, off::reserveSimple,
					on::reserveSimple, false);
			alternate(report, "fair lock, 8 threads, one key, @DistributedLock", 8, off::reserveFair, on::reserveFair,
					true);
			if (registry.find("warden.lock.acquire").timer() == null) {
				throw new IllegalStateException("The metered calls recorded nothing");
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private void alternate(Report report, String scenario, int threads, Call off, Call on, boolean oneKey)
			throws Exception {
		Alternation.measure(report, new Metric(scenario + ": calls/s", true), threads, runNanos, SLICES, OFF,
				thread -> off.run(key(thread, oneKey)), ON, thread -> on.run(key(thread, oneKey)));
	}

	private static String key(int thread, boolean oneKey) {
		return oneKey ? "shared" : "own-" + thread;
	}

	private static Stock proxy(Warden warden, LockCalls calls) {
		LockOperationSource operations = new LockOperationSource(new MethodExpressions(null), "bench:metrics:", 10_000);
		LockAspectSupport support = new LockAspectSupport(warden, LockListener.NONE, operations,
				List.of(new CompletionStageHandler()), true, calls);
		ProxyFactory factory = new ProxyFactory(new Stock());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LockInterceptor(() -> support));
		return (Stock) factory.getProxy();
	}

	/** One annotated method. */
	@FunctionalInterface
	private interface Call {

		void run(String key);

	}

	/** The annotated bean: empty methods under a lock on their argument. */
	public static class Stock {

		@DistributedLock(name = "stock", key = "#p0", type = LockType.REENTRANT)
		public void reserve(String sku) {
		}

		@DistributedLock(name = "stock-simple", key = "#p0", type = LockType.SIMPLE)
		public void reserveSimple(String sku) {
		}

		@DistributedLock(name = "stock-fair", key = "#p0", type = LockType.FAIR)
		public void reserveFair(String sku) {
		}

	}

}
