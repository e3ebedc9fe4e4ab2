package dev.warden.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
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

	private static final long LEAD_MILLIS = 2000;

	private final RedisNode redis;

	DelayedTaskScenarios(RedisNode redis) {
		this.redis = redis;
	}

	/**
	 * {@code tasks} tasks due over {@code spreadMillis}, starting {@value #LEAD_MILLIS} ms from now
	 * (time for the producers to schedule them all before the first is due).
	 */
	void lateness(int tasks, long spreadMillis, String label, Report report) throws Exception {
		long[] lateness = new long[tasks];
		AtomicInteger done = new AtomicInteger();
		CountDownLatch all = new CountDownLatch(tasks);
		String scenario = "delayed, " + tasks + " due " + (spreadMillis == 0 ? "at once" : "over " + spreadMillis + " ms");
		long firstDue;
		long lastRun;
		RedisCounters before = RedisCounters.read(redis);
		if (label.equals("Warden")) {
			RedisClient client = RedisClient.create(redis.uri());
			try (Warden warden = Warden.builder(client).shutdownGrace(Duration.ofSeconds(5)).build()) {
				DelayedQueue<Long> queue = warden.getDelayedQueue("bench-delay-" + System.nanoTime(), Long.class);
				long[] last = { 0 };
				TaskConsumer consumer = queue.consume(delivery -> {
					long now = System.currentTimeMillis();
					lateness[done.getAndIncrement()] = Math.max(0, now - delivery.payload());
					synchronized (last) {
						last[0] = Math.max(last[0], now);
					}
					all.countDown();
				});
				firstDue = System.currentTimeMillis() + LEAD_MILLIS;
				scheduleAll(tasks, firstDue, spreadMillis,
						(i, due) -> queue.schedule("t" + i, due, java.time.Instant.ofEpochMilli(due)));
				all.await(5, TimeUnit.MINUTES);
				consumer.close();
				lastRun = last[0];
			}
			finally {
				client.shutdown();
			}
		}
		else {
			Config config = new Config();
			config.useSingleServer().setAddress(redis.uri());
			RedissonClient redisson = Redisson.create(config);
			ExecutorService consumers = Executors.newFixedThreadPool(8);
			try {
				RBlockingQueue<Long> destination = redisson.getBlockingQueue("bench-delay-" + System.nanoTime());
				RDelayedQueue<Long> delayed = redisson.getDelayedQueue(destination);
				long[] last = { 0 };
				for (int c = 0; c < 8; c++) {
					consumers.submit(() -> {
						while (!Thread.currentThread().isInterrupted()) {
							Long due = destination.take();
							long now = System.currentTimeMillis();
							lateness[done.getAndIncrement()] = Math.max(0, now - due);
							synchronized (last) {
								last[0] = Math.max(last[0], now);
							}
							all.countDown();
						}
						return null;
					});
				}
				firstDue = System.currentTimeMillis() + LEAD_MILLIS;
				scheduleAll(tasks, firstDue, spreadMillis,
						(i, due) -> delayed.offer(due, due - System.currentTimeMillis(), TimeUnit.MILLISECONDS));
				all.await(5, TimeUnit.MINUTES);
				lastRun = last[0];
				delayed.destroy();
			}
			finally {
				consumers.shutdownNow();
				redisson.shutdown();
			}
		}
		RedisCounters after = RedisCounters.read(redis);
		if (spreadMillis > 0) {
			report.add(new Metric(scenario + ": Redis commands per task", false), label,
					after.commandsPer(before, tasks));
			report.add(new Metric(scenario + ": Redis CPU per task (µs)", false), label, after.cpuMicrosPer(before, tasks));
		}
		Arrays.sort(lateness);
		report.add(new Metric(scenario + ": lateness p50 (ms)", false), label, lateness[tasks / 2]);
		report.add(new Metric(scenario + ": lateness p99 (ms)", false), label,
				lateness[Math.min(tasks - 1, (int) (tasks * 0.99))]);
		if (spreadMillis == 0) {
			double seconds = Math.max(1, lastRun - firstDue) / 1000.0;
			report.add(new Metric(scenario + ": drain rate (tasks/s)", true), label, tasks / seconds);
		}
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
			Config config = new Config();
			config.useSingleServer().setAddress(redis.uri());
			RedissonClient redisson = Redisson.create(config);
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

	@FunctionalInterface
	private interface Schedule {

		void schedule(int index, long due) throws Exception;

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
