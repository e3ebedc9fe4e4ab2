package dev.warden.metrics;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.lock.interceptor.LockOperation;
import dev.warden.ratelimit.RateLimitDecision;
import dev.warden.ratelimit.RateLimitListener;
import dev.warden.task.QueueStats;
import dev.warden.task.TaskListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warden's meters in one {@link MeterRegistry}, fed by the listeners it implements. Every tag has
 * few values: a lock's tag is its annotation's name, never an evaluated key; a task's is its queue.
 * <ul>
 * <li>{@code warden.lock.acquire} (timer; {@code kind}, {@code name}, {@code outcome} =
 * acquired/timeout/error): how long {@code @DistributedLock} calls waited for their locks.</li>
 * <li>{@code warden.lock.held} (timer; {@code kind}, {@code name}): how long they held them.</li>
 * <li>{@code warden.lock.lease.lost} (counter): leases lost while held.</li>
 * <li>{@code warden.lock.waiters} (gauge): calls of this instance waiting for their locks now.</li>
 * <li>{@code warden.task.scheduled}, {@code .completed}, {@code .failed}, {@code .dead} (counters;
 * {@code queue}): tasks this instance scheduled, and deliveries it ran that succeeded, failed, or
 * failed for good.</li>
 * <li>{@code warden.task.lateness} (timer; {@code queue}): from a task's due time to its start, by
 * Redis's clock.</li>
 * <li>{@code warden.task.duration} (timer; {@code queue}, {@code outcome} = completed/failed): how long
 * deliveries ran.</li>
 * <li>{@code warden.ratelimit.calls} (counter; {@code name}, {@code outcome} = permitted/limited):
 * {@code @RateLimited} calls, by the annotation's name (never the call's key).</li>
 * <li>{@code warden.ratelimit.wait} (timer; {@code name}): how long permitted calls waited for their
 * permits.</li>
 * <li>{@code warden.task.deferred} (counter; {@code queue}, {@code reason} = concurrency/rate): due
 * tasks this instance deferred because their key was at the queue's task limits.</li>
 * <li>{@code warden.task.pending}, {@code warden.task.in.flight}, {@code warden.task.dead.letters},
 * {@code warden.task.deferred.pending} (gauges; {@code queue}): what each queue this instance uses
 * holds in Redis, read in one call at most once per refresh interval, whatever the number of gauges
 * and scrapes.</li>
 * <li>{@code warden.fleet.instances} (gauge): the Warden instances live on this Redis, this one
 * included, read at most once per refresh interval.</li>
 * </ul>
 * Elsewhere: {@code warden.redis.memory.usage} (gauge), registered with the health indicator. The
 * list of every meter, generated from a running application, is {@code docs/meters.md}.
 */
public final class WardenMetrics implements LockListener, LockCalls.Listener, TaskListener, RateLimitListener {

	private static final Logger logger = LoggerFactory.getLogger(WardenMetrics.class);

	private final MeterRegistry registry;

	private final Function<String, QueueStats> queueStats;

	private final java.util.concurrent.ConcurrentMap<String, LimitMeters> limitMeters =
			new java.util.concurrent.ConcurrentHashMap<>();

	private final long refreshNanos;

	private final Counter leasesLost;

	/** Keyed by the annotated method, whose hash is cheaper than the operation's. */
	private final Map<Method, LockMeters> locks = new ConcurrentHashMap<>();

	private final Map<String, QueueMeters> queues = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 * @param waiters how many lock calls wait now
	 * @param queueStats reads one queue's counts from Redis
	 * @param refreshInterval how long a queue's counts are reused before they are read again
	 */
	public WardenMetrics(MeterRegistry registry, IntSupplier waiters, Function<String, QueueStats> queueStats,
			Duration refreshInterval) {
		this.registry = registry;
		this.queueStats = queueStats;
		this.refreshNanos = refreshInterval.toNanos();
		this.leasesLost = Counter.builder("warden.lock.lease.lost")
			.description("Locks whose lease was lost while they were held (the LockListener's onLeaseLost event)")
			.register(registry);
		// Held strongly: a gauge keeps only a weak reference to its object, and nothing else refers to
		// this supplier, which a garbage collection would otherwise take (the gauge then reads NaN).
		Gauge.builder("warden.lock.waiters", waiters, IntSupplier::getAsInt)
			.description("@DistributedLock calls of this instance waiting for their locks")
			.strongReference(true)
			.register(registry);
	}

	/**
	 * Registers {@code warden.fleet.instances}: how many Warden instances are live on this Redis
	 * (they announce themselves), read with {@code liveInstances} at most once per refresh interval;
	 * NaN while it cannot be read.
	 * @param liveInstances reads the count from Redis
	 */
	public void registerFleetGauge(IntSupplier liveInstances) {
		FleetCount count = new FleetCount(liveInstances);
		Gauge.builder("warden.fleet.instances", count, FleetCount::read)
			.description("Warden instances live on this Redis, this one included (read at most once per "
					+ "warden.metrics.queue-refresh-interval)")
			.strongReference(true)
			.register(registry);
	}

	/** The fleet's size, as last read from Redis. */
	private final class FleetCount {

		private final IntSupplier liveInstances;

		private final ReentrantLock reading = new ReentrantLock();

		private volatile double last = Double.NaN;

		private volatile long readAtNanos;

		FleetCount(IntSupplier liveInstances) {
			this.liveInstances = liveInstances;
		}

		double read() {
			if (!Double.isNaN(last) && System.nanoTime() - readAtNanos < refreshNanos) {
				return last;
			}
			reading.lock();
			try {
				if (Double.isNaN(last) || System.nanoTime() - readAtNanos >= refreshNanos) {
					try {
						last = liveInstances.getAsInt();
					}
					catch (RuntimeException ex) {
						logger.debug("Could not read the live Warden instances", ex);
						last = Double.NaN;
					}
					readAtNanos = System.nanoTime();
				}
				return last;
			}
			finally {
				reading.unlock();
			}
		}

	}

	@Override
	public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
		leasesLost.increment();
	}

	@Override
	public void onAcquire(LockOperation operation, LockCalls.Outcome outcome, long waitNanos) {
		lockMeters(operation).acquire(outcome).record(waitNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onRelease(LockOperation operation, long heldNanos) {
		lockMeters(operation).held.record(heldNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onDecision(String name, RateLimitDecision decision) {
		LimitMeters meters = limitMeters.computeIfAbsent(name, LimitMeters::new);
		if (decision.granted()) {
			meters.permitted.increment();
			meters.waited.record(decision.delay().toNanos(), TimeUnit.NANOSECONDS);
		}
		else {
			meters.limited.increment();
		}
	}

	/** The meters of one rate limit name. */
	private final class LimitMeters {

		private final Counter permitted;

		private final Counter limited;

		private final Timer waited;

		LimitMeters(String name) {
			this.permitted = calls(name, "permitted");
			this.limited = calls(name, "limited");
			this.waited = Timer.builder("warden.ratelimit.wait")
				.description("How long permitted @RateLimited calls waited for their permits")
				.tag("name", name)
				.register(registry);
		}

		private Counter calls(String name, String outcome) {
			return Counter.builder("warden.ratelimit.calls")
				.description("@RateLimited calls, permitted or limited")
				.tag("name", name)
				.tag("outcome", outcome)
				.register(registry);
		}

	}

	@Override
	public void onScheduled(String queue, int count) {
		queueMeters(queue).scheduled.increment(count);
	}

	@Override
	public void onConsumerStarted(String queue) {
		queueMeters(queue);
	}

	@Override
	public void onStarted(String queue, long latenessNanos) {
		queueMeters(queue).lateness.record(latenessNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onCompleted(String queue, long durationNanos) {
		QueueMeters meters = queueMeters(queue);
		meters.completed.increment();
		meters.completedDuration.record(durationNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onDeferred(String queue, String reason) {
		QueueMeters meters = queueMeters(queue);
		("rate".equals(reason) ? meters.deferredForRate : meters.deferredForConcurrency).increment();
	}

	@Override
	public void onFailed(String queue, long durationNanos, boolean dead) {
		QueueMeters meters = queueMeters(queue);
		meters.failed.increment();
		meters.failedDuration.record(durationNanos, TimeUnit.NANOSECONDS);
		if (dead) {
			meters.dead.increment();
		}
	}

	/**
	 * The lateness of the deliveries this instance ran from a queue, from its timer: the percentiles
	 * the timer publishes (none unless configured, for example with Spring Boot's
	 * {@code management.metrics.distribution.percentiles.warden.task.lateness=0.5,0.95,0.99}), then its
	 * mean and max.
	 * @param queue the queue's name
	 * @return in ms, by name ({@code p50}, {@code p95}, …, {@code mean}, {@code max}); empty before the
	 * first delivery
	 */
	public Map<String, Double> lateness(String queue) {
		QueueMeters meters = queues.get(queue);
		if (meters == null || meters.lateness.count() == 0) {
			return Map.of();
		}
		Map<String, Double> lateness = new LinkedHashMap<>();
		HistogramSnapshot snapshot = meters.lateness.takeSnapshot();
		for (ValueAtPercentile value : snapshot.percentileValues()) {
			lateness.put("p" + BigDecimal.valueOf(value.percentile() * 100).stripTrailingZeros().toPlainString(),
					value.value(TimeUnit.MILLISECONDS));
		}
		lateness.put("mean", snapshot.mean(TimeUnit.MILLISECONDS));
		lateness.put("max", snapshot.max(TimeUnit.MILLISECONDS));
		return lateness;
	}

	private LockMeters lockMeters(LockOperation operation) {
		LockMeters meters = locks.get(operation.method());
		return (meters != null) ? meters : locks.computeIfAbsent(operation.method(), method -> new LockMeters(operation));
	}

	private QueueMeters queueMeters(String queue) {
		QueueMeters meters = queues.get(queue);
		return (meters != null) ? meters : queues.computeIfAbsent(queue, QueueMeters::new);
	}

	/** The meters of one annotated method. */
	private final class LockMeters {

		private final Timer acquired;

		private final Timer timedOut;

		private final Timer failed;

		private final Timer held;

		LockMeters(LockOperation operation) {
			String kind = operation.type().tag();
			this.acquired = acquireTimer(kind, operation.label(), LockCalls.Outcome.ACQUIRED);
			this.timedOut = acquireTimer(kind, operation.label(), LockCalls.Outcome.TIMEOUT);
			this.failed = acquireTimer(kind, operation.label(), LockCalls.Outcome.ERROR);
			this.held = Timer.builder("warden.lock.held")
				.description("How long @DistributedLock calls held their locks")
				.tag("kind", kind)
				.tag("name", operation.label())
				.register(registry);
		}

		private Timer acquireTimer(String kind, String name, LockCalls.Outcome outcome) {
			return Timer.builder("warden.lock.acquire")
				.description("How long @DistributedLock calls waited for their locks")
				.tag("kind", kind)
				.tag("name", name)
				.tag("outcome", outcome.tag())
				.register(registry);
		}

		Timer acquire(LockCalls.Outcome outcome) {
			return switch (outcome) {
				case ACQUIRED -> acquired;
				case TIMEOUT -> timedOut;
				case ERROR -> failed;
			};
		}

	}

	/** The meters of one queue, and its counts as last read from Redis. */
	private final class QueueMeters {

		private final String queue;

		private final Counter scheduled;

		private final Counter completed;

		private final Counter failed;

		private final Counter dead;

		private final Counter deferredForConcurrency;

		private final Counter deferredForRate;

		private final Timer lateness;

		private final Timer completedDuration;

		private final Timer failedDuration;

		private final ReentrantLock reading = new ReentrantLock();

		private volatile @Nullable QueueStats last;

		private volatile long readAtNanos;

		QueueMeters(String queue) {
			this.queue = queue;
			this.scheduled = counter("warden.task.scheduled",
					"Tasks this instance scheduled (not counting a schedule that found the task already pending)");
			this.completed = counter("warden.task.completed", "Deliveries this instance ran that succeeded");
			this.failed = counter("warden.task.failed", "Deliveries this instance ran that failed, retried or not");
			this.dead = counter("warden.task.dead", "Deliveries this instance ran that moved their task to the dead letters");
			this.deferredForConcurrency = deferred("concurrency");
			this.deferredForRate = deferred("rate");
			this.lateness = Timer.builder("warden.task.lateness")
				.description("From a task's due time to its start, by Redis's clock")
				.tag("queue", queue)
				.register(registry);
			this.completedDuration = duration("completed");
			this.failedDuration = duration("failed");
			gauge("warden.task.pending", "Tasks waiting for their due time or a consumer", QueueStats::pending);
			gauge("warden.task.in.flight", "Tasks claimed by a consumer and not finished", QueueStats::inFlight);
			gauge("warden.task.dead.letters", "Tasks given up on", QueueStats::deadLetters);
			gauge("warden.task.deferred.pending", "Due tasks waiting for their key to be under the queue's task limits",
					QueueStats::deferred);
		}

		private Counter deferred(String reason) {
			return Counter.builder("warden.task.deferred")
				.description("Due tasks this instance deferred because their key was at the queue's task limits")
				.tag("queue", queue)
				.tag("reason", reason)
				.register(registry);
		}

		private Counter counter(String name, String description) {
			return Counter.builder(name).description(description).tag("queue", queue).register(registry);
		}

		private Timer duration(String outcome) {
			return Timer.builder("warden.task.duration")
				.description("How long deliveries ran")
				.tag("queue", queue)
				.tag("outcome", outcome)
				.register(registry);
		}

		private void gauge(String name, String description, ToDoubleFunction<QueueStats> value) {
			Gauge.builder(name, this, meters -> {
				QueueStats stats = meters.stats();
				return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
			}).description(description).tag("queue", queue).register(registry);
		}

		/** The counts, read again when the last read is older than the refresh interval. */
		@Nullable QueueStats stats() {
			if (last != null && System.nanoTime() - readAtNanos < refreshNanos) {
				return last;
			}
			reading.lock();
			try {
				if (last == null || System.nanoTime() - readAtNanos >= refreshNanos) {
					try {
						last = queueStats.apply(queue);
					}
					catch (RuntimeException ex) {
						logger.debug("Could not read the counts of queue '{}'", queue, ex);
						last = null;
					}
					readAtNanos = System.nanoTime();
				}
				return last;
			}
			finally {
				reading.unlock();
			}
		}

	}

}
