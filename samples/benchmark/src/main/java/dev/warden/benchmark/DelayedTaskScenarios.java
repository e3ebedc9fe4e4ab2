package dev.warden.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.metrics.WardenMetrics;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Delayed tasks: how late they run (their handler's start minus their due time), how fast a
 * backlog drains, and how many Redis bytes a pending task takes, Warden's durable queue against
 * Redisson's {@code RDelayedQueue}.
 */
@SuppressWarnings("deprecation") // RDelayedQueue is deprecated in Redisson; it is still what users run.
final class DelayedTaskScenarios {

	private static final String PAYLOAD = "0123456789012345678901234567890123456789";

	/** At most this many warm-up tasks: a tenth of the measured ones. */
	private static final int WARMUP_TASKS = 1000;

	private final RedisNode redis;

	DelayedTaskScenarios(RedisNode redis) {
		this.redis = redis;
	}

	/**
	 * {@code tasks} tasks due over {@code spreadMillis}, starting {@code tasks / 5} ms (at least
	 * 200 ms) from now: time for the producers to schedule them all before the first is due (2 s for
	 * 10,000 tasks; they take about 1 s on a 2-core machine). Measured after a warm-up of up
	 * to {@value #WARMUP_TASKS} tasks through the same consumers.
	 */
	void lateness(int tasks, long spreadMillis, String label, Report report) throws Exception {
		Deliveries deliveries = new Deliveries(tasks, Math.max(1, Math.min(WARMUP_TASKS, tasks / 10)));
		long leadMillis = Math.max(200, tasks / 5);
		String scenario = "delayed, " + tasks + " due " + (spreadMillis == 0 ? "at once" : "over " + spreadMillis + " ms");
		Measured measured;
		if (!label.equals("Redisson")) {
			RedisClient client = RedisClient.create(redis.uri());
			Warden.Builder builder = LockClient.withConnections(Warden.builder(client)).shutdownGrace(Duration.ofSeconds(5));
			AtomicReference<Warden> built = new AtomicReference<>();
			if (label.equals(MetricsScenarios.ON)) {
				// Every delivery is counted and timed; the gauges are not scraped here.
				builder.taskListener(new WardenMetrics(new SimpleMeterRegistry(), () -> 0,
						queue -> built.get().getDelayedQueue(queue).stats(), Duration.ofSeconds(10)));
			}
			try (Warden warden = builder.build()) {
				built.set(warden);
				DelayedQueue<Long> queue = warden.getDelayedQueue("bench-delay-" + System.nanoTime(), Long.class);
				TaskConsumer consumer = queue.consume(delivery -> deliveries.record(delivery.payload()));
				measured = measure(deliveries, tasks, leadMillis, spreadMillis,
						(i, due) -> queue.schedule("t" + i, due, java.time.Instant.ofEpochMilli(Math.abs(due))),
						ClientCounters.ioThreadPrefix(label));
				consumer.close();
			}
			finally {
				client.shutdown();
			}
		}
		else {
			RedissonClient redisson = newRedisson();
			ExecutorService consumers = Executors.newFixedThreadPool(8);
			try {
				RBlockingQueue<Long> destination = redisson.getBlockingQueue("bench-delay-" + System.nanoTime());
				RDelayedQueue<Long> delayed = redisson.getDelayedQueue(destination);
				for (int c = 0; c < 8; c++) {
					consumers.submit(() -> {
						while (!Thread.currentThread().isInterrupted()) {
							deliveries.record(destination.take());
						}
						return null;
					});
				}
				measured = measure(deliveries, tasks, leadMillis, spreadMillis, (i, due) -> delayed.offer(due,
						Math.max(0, Math.abs(due) - System.currentTimeMillis()), TimeUnit.MILLISECONDS),
						ClientCounters.ioThreadPrefix(label));
				delayed.destroy();
			}
			finally {
				consumers.shutdownNow();
				redisson.shutdown();
			}
		}
		long[] lateness = deliveries.lateness;
		long lastRun = deliveries.lastRun();
		RedisCounters after = RedisCounters.read(redis);
		if (spreadMillis > 0) {
			report.add(new Metric(scenario + ": Redis commands per task", false), label,
					after.commandsPer(measured.before(), tasks));
			report.add(new Metric(scenario + ": Redis CPU per task (µs)", false), label,
					after.cpuMicrosPer(measured.before(), tasks));
			report.add(new Metric(scenario + ": of which scheduling (µs)", false), label,
					measured.scheduled().cpuMicrosPer(measured.before(), tasks));
		}
		Arrays.sort(lateness);
		report.add(new Metric(scenario + ": lateness p50 (ms)", false), label, lateness[tasks / 2]);
		report.add(new Metric(scenario + ": lateness p99 (ms)", false), label,
				lateness[Math.min(tasks - 1, (int) (tasks * 0.99))]);
		report.add(new Metric(scenario + ": lateness max (ms)", false), label, lateness[tasks - 1]);
		Scenarios.clientFigures(report, label, scenario, "task", measured.used(), tasks);
		if (spreadMillis == 0) {
			// The drain alone, from the last task scheduled to the last one run: what the cost model's
			// drain row divides by.
			RedisCounters draining = measured.drainedRedis().minus(measured.scheduled());
			report.add(new Metric(scenario + ": while draining, Redis scripts per task", false), label,
					draining.scriptsPer(tasks));
			report.add(new Metric(scenario + ": while draining, Redis commands per task", false), label,
					draining.commandsPer(tasks));
			report.add(new Metric(scenario + ": while draining, Redis read events per task", false), label,
					draining.readsPer(tasks));
			report.add(new Metric(scenario + ": while draining, Redis CPU per task (µs)", false), label,
					draining.cpuMicrosPer(tasks));
			report.add(new Metric(scenario + ": while draining, bytes on the wire per task", false), label,
					draining.wireBytesPer(tasks));
			report.add(new Metric(scenario + ": while draining, client CPU per task (µs)", false), label,
					measured.drained().cpuMicrosPer(tasks));
			report.add(new Metric(scenario + ": while draining, event-loop CPU per task (µs)", false), label,
					measured.drained().busiestIoThreadCpuMicrosPer(tasks));
		}
		// From the first due time to the last run: for tasks spread out, about the rate they fall due.
		double seconds = Math.max(1, lastRun - measured.firstDue()) / 1000.0;
		report.add(new Metric(scenario + (spreadMillis == 0 ? ": drain rate (tasks/s)" : ": throughput (tasks/s)"), true),
				label, tasks / seconds);
	}

	/** Redis memory per pending task, with a 40-byte payload, due in an hour. */
	void bytesPerTask(int tasks, String label, Report report) throws Exception {
		redis.call("FLUSHALL");
		long before = usedMemory();
		if (label.equals("Warden")) {
			RedisClient client = RedisClient.create(redis.uri());
			try (Warden warden = Warden.create(client)) {
				DelayedQueue<String> queue = warden.getDelayedQueue("bench-memory", String.class);
				scheduleAll(tasks, 0, 0, (i, due) -> queue.schedule("t" + i, PAYLOAD, Duration.ofHours(1)));
				report.add(new Metric("delayed, bytes per pending task (40-byte payload)", false), label,
						(usedMemory() - before) / (double) tasks);
			}
			finally {
				client.shutdown();
			}
		}
		else {
			RedissonClient redisson = newRedisson();
			try {
				RDelayedQueue<String> delayed = redisson.getDelayedQueue(redisson.getBlockingQueue("bench-memory"));
				scheduleAll(tasks, 0, 0, (i, due) -> delayed.offer(PAYLOAD + i, 1, TimeUnit.HOURS));
				report.add(new Metric("delayed, bytes per pending task (40-byte payload)", false), label,
						(usedMemory() - before) / (double) tasks);
				delayed.destroy();
			}
			finally {
				redisson.shutdown();
			}
		}
		redis.call("FLUSHALL");
	}

	/**
	 * What the consumers ran: each payload is its task's due time (epoch ms); warm-up tasks carry
	 * it negated and are not measured.
	 */
	private static final class Deliveries {

		final long[] lateness;

		private final AtomicInteger done = new AtomicInteger();

		private final CountDownLatch all;

		private final int warmupTasks;

		private final CountDownLatch warm;

		private long lastRun;

		Deliveries(int tasks, int warmupTasks) {
			this.lateness = new long[tasks];
			this.all = new CountDownLatch(tasks);
			this.warmupTasks = warmupTasks;
			this.warm = new CountDownLatch(warmupTasks);
		}

		void record(long due) {
			long now = System.currentTimeMillis();
			if (due < 0) {
				warm.countDown();
				return;
			}
			lateness[done.getAndIncrement()] = Math.max(0, now - due);
			synchronized (this) {
				lastRun = Math.max(lastRun, now);
			}
			all.countDown();
		}

		/** Runs the warm-up tasks, due over 200 ms from 100 ms from now, through the consumers. */
		void warmUp(Schedule schedule) throws Exception {
			long first = System.currentTimeMillis() + 100;
			for (int i = 0; i < warmupTasks; i++) {
				schedule.schedule(-1 - i, -(first + 200L * i / warmupTasks));
			}
			warm.await(1, TimeUnit.MINUTES);
		}

		void await() throws InterruptedException {
			all.await(5, TimeUnit.MINUTES);
		}

		synchronized long lastRun() {
			return lastRun;
		}

	}

	@FunctionalInterface
	private interface Schedule {

		void schedule(int index, long due) throws Exception;

	}

	private RedissonClient newRedisson() {
		Config config = Transport.redissonConfig();
		config.useSingleServer().setAddress(redis.uri());
		return Redisson.create(config);
	}

	/**
	 * Where a measured run started: Redis's counters before the tasks were scheduled and once they
	 * all were, and the first task's due time; the client's use over the whole run and over the drain
	 * alone (from the last task scheduled to the last one run), and Redis's counters at its end.
	 */
	private record Measured(RedisCounters before, RedisCounters scheduled, long firstDue, ClientCounters.Delta used,
			ClientCounters.Delta drained, RedisCounters drainedRedis) {
	}

	/**
	 * Warms the consumers up, then schedules {@code tasks} tasks, the first due {@code leadMillis}
	 * from now, and waits until they all ran.
	 */
	private Measured measure(Deliveries deliveries, int tasks, long leadMillis, long spreadMillis, Schedule schedule,
			String ioThreads) throws Exception {
		deliveries.warmUp(schedule);
		RedisCounters before = RedisCounters.read(redis);
		ClientCounters clientBefore = ClientCounters.read(ioThreads);
		long firstDue = System.currentTimeMillis() + leadMillis;
		scheduleAll(tasks, firstDue, spreadMillis, schedule);
		RedisCounters scheduled = RedisCounters.read(redis);
		ClientCounters clientScheduled = ClientCounters.read(ioThreads);
		deliveries.await();
		ClientCounters clientAfter = ClientCounters.read(ioThreads);
		RedisCounters drained = RedisCounters.read(redis);
		return new Measured(before, scheduled, firstDue, clientAfter.since(clientBefore), clientAfter.since(clientScheduled),
				drained);
	}

	private static void scheduleAll(int tasks, long firstDue, long spreadMillis, Schedule schedule) throws Exception {
		ExecutorService producers = Executors.newFixedThreadPool(8);
		try {
			AtomicInteger next = new AtomicInteger();
			CountDownLatch finished = new CountDownLatch(8);
			for (int p = 0; p < 8; p++) {
				producers.submit(() -> {
					for (int i = next.getAndIncrement(); i < tasks; i = next.getAndIncrement()) {
						long due = firstDue + (tasks > 1 ? spreadMillis * i / (tasks - 1) : 0);
						schedule.schedule(i, due);
					}
					finished.countDown();
					return null;
				});
			}
			finished.await();
		}
		finally {
			producers.shutdownNow();
		}
	}

	private long usedMemory() {
		String info = (String) redis.call("INFO", "memory");
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("used_memory:")) {
				return Long.parseLong(line.substring("used_memory:".length()).trim());
			}
		}
		return -1;
	}

}
