package dev.warden.benchmark;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import dev.warden.benchmark.Report.Metric;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The measurements. Each runs one library against the shared Redis for a fixed time and adds its
 * figures to the report; nothing here asserts anything.
 */
final class Scenarios {

	/** How many slices of each of an uncontended run and the no-op ceiling alternate. */
	private static final int CEILING_SLICES = 8;

	private final RedisNode redis;

	private final long runNanos;

	private final long warmupNanos;

	Scenarios(RedisNode redis, long runMillis) {
		this.redis = redis;
		this.runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis);
		this.warmupNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(20, runMillis / 4));
		RedisCounters.calibrate(redis);
	}

	/**
	 * Lock and unlock pairs per second, each thread on its own key (no contention), and their share
	 * of the ceiling: the run is cut into slices that alternate with slices of the no-op script at
	 * the same concurrency, so both see the machine in the same state (on a shared machine the
	 * ceiling itself moves by up to 2× between runs). A pair is two round trips, so the share is
	 * pairs/s against half the no-op calls/s.
	 */
	void uncontended(LockClient client, int threads, Kind kind, Report report) throws Exception {
		Function<Integer, String> key = thread -> "bench:own:" + kind + ":" + thread;
		try (NoOpScript noOp = new NoOpScript(redis)) {
			loop(client, threads, kind, key, warmupNanos);
			noOp.run(threads, warmupNanos);
			long sliceNanos = runNanos / CEILING_SLICES;
			Run pairs = null;
			Run noOps = null;
			RedisCounters redisUsed = RedisCounters.ZERO;
			String ioThreads = ClientCounters.ioThreadPrefix(client.label());
			ClientCounters.Delta used = null;
			for (int slice = 0; slice < CEILING_SLICES; slice++) {
				RedisCounters before = RedisCounters.read(redis);
				ClientCounters clientBefore = ClientCounters.read(ioThreads);
				Run run = loop(client, threads, kind, key, sliceNanos);
				ClientCounters.Delta slicesUse = ClientCounters.read(ioThreads).since(clientBefore);
				used = (used == null) ? slicesUse : used.plus(slicesUse);
				redisUsed = redisUsed.plus(RedisCounters.read(redis).minus(before));
				pairs = (pairs == null) ? run : pairs.plus(run);
				Run ceiling = noOp.run(threads, sliceNanos);
				noOps = (noOps == null) ? ceiling : noOps.plus(ceiling);
			}
			String scenario = kind.prefix + threads + (threads == 1 ? " thread" : " threads") + ", own keys";
			report.add(new Metric(scenario + ": pairs/s", true), client.label(), pairs.perSecond());
			report.add(new Metric(scenario + ": share of the no-op ceiling (%)", true), client.label(),
					100 * pairs.perSecond() / (noOps.perSecond() / 2));
			if (threads == 1) {
				report.add(new Metric(scenario + ": Redis commands per pair", false), client.label(),
						redisUsed.commandsPer(pairs.count()));
			}
			if (threads == 1 && kind == Kind.REENTRANT) {
				report.add(new Metric(scenario + ": Redis scripts per pair", false), client.label(),
						redisUsed.scriptsPer(pairs.count()));
				report.add(new Metric(scenario + ": bytes on the wire per pair", false), client.label(),
						redisUsed.wireBytesPer(pairs.count()));
			}
			if (threads == 1 || kind == Kind.REENTRANT) {
				report.add(new Metric(scenario + ": Redis CPU per pair (µs)", false), client.label(),
						redisUsed.cpuMicrosPer(pairs.count()));
			}
			if (kind == Kind.REENTRANT) {
				report.add(new Metric(scenario + ": Redis read events per pair", false), client.label(),
						redisUsed.readsPer(pairs.count()));
			}
			if (threads > 1) {
				report.add(new Metric(scenario + ": acquire p99 (ms)", false), client.label(), pairs.percentileMillis(0.99));
			}
			if (kind == Kind.REENTRANT) {
				clientFigures(report, client.label(), scenario, "pair", used, pairs.count());
			}
		}
	}

	/**
	 * Lock and unlock pairs per second on a Redis Cluster, each thread on its own key (the keys fall
	 * in slots of every master), with the client's figures. No share of a ceiling: the no-op script
	 * has no key to route it by.
	 */
	void uncontendedOnCluster(LockClient client, int threads, String cluster, Report report) throws Exception {
		Function<Integer, String> key = thread -> "bench:cluster:" + thread;
		loop(client, threads, Kind.REENTRANT, key, warmupNanos);
		String ioThreads = ClientCounters.ioThreadPrefix(client.label());
		ClientCounters before = ClientCounters.read(ioThreads);
		Run pairs = loop(client, threads, Kind.REENTRANT, key, runNanos);
		ClientCounters.Delta used = ClientCounters.read(ioThreads).since(before);
		String scenario = cluster + ", " + threads + " threads, own keys";
		report.add(new Metric(scenario + ": pairs/s", true), client.label(), pairs.perSecond());
		report.add(new Metric(scenario + ": acquire p99 (ms)", false), client.label(), pairs.percentileMillis(0.99));
		clientFigures(report, client.label(), scenario, "pair", used, pairs.count());
	}

	/**
	 * The figures that do not depend on the machine's cores: the client's CPU and allocation per
	 * operation, and how busy its busiest I/O thread was.
	 */
	static void clientFigures(Report report, String label, String scenario, String operation,
			ClientCounters.Delta used, double operations) {
		report.add(new Metric(scenario + ": client CPU per " + operation + " (µs)", false), label,
				used.cpuMicrosPer(operations));
		report.add(new Metric(scenario + ": bytes allocated per " + operation, false), label,
				used.bytesPer(operations));
		report.add(new Metric(scenario + ": busiest I/O thread busy (%)", false), label, used.busiestIoThreadPercent());
		report.add(new Metric(scenario + ": event-loop CPU per " + operation + " (µs)", false), label,
				used.busiestIoThreadCpuMicrosPer(operations));
	}

	/** Every thread on one key: acquisitions per second, acquire latency and fairness. */
	void contended(LockClient client, int threads, Kind kind, Report report) throws Exception {
		String key = "bench:one:" + kind;
		loop(client, threads, kind, thread -> key, warmupNanos);
		RedisCounters before = RedisCounters.read(redis);
		String ioThreads = ClientCounters.ioThreadPrefix(client.label());
		ClientCounters clientBefore = ClientCounters.read(ioThreads);
		Run run = loop(client, threads, kind, thread -> key, runNanos);
		ClientCounters.Delta used = ClientCounters.read(ioThreads).since(clientBefore);
		RedisCounters after = RedisCounters.read(redis);
		String scenario = kind.prefix + threads + " threads, one key";
		report.add(new Metric(scenario + ": acquisitions/s", true), client.label(), run.perSecond());
		RedisCounters redisUsed = after.minus(before);
		if (threads == 8) {
			report.add(new Metric(scenario + ": Redis commands per acquisition", false), client.label(),
					redisUsed.commandsPer(run.count()));
		}
		if (threads == 8 && kind != Kind.SIMPLE) {
			report.add(new Metric(scenario + ": Redis scripts per acquisition", false), client.label(),
					redisUsed.scriptsPer(run.count()));
			report.add(new Metric(scenario + ": bytes on the wire per acquisition", false), client.label(),
					redisUsed.wireBytesPer(run.count()));
		}
		if (threads == 8 || kind == Kind.REENTRANT) {
			report.add(new Metric(scenario + ": Redis CPU per acquisition (µs)", false), client.label(),
					redisUsed.cpuMicrosPer(run.count()));
		}
		if (kind != Kind.SIMPLE) {
			report.add(new Metric(scenario + ": Redis read events per acquisition", false), client.label(),
					redisUsed.readsPer(run.count()));
		}
		if (kind != Kind.FAIR) {
			report.add(new Metric(scenario + ": acquire p50 (ms)", false), client.label(), run.percentileMillis(0.50));
			report.add(new Metric(scenario + ": acquire p99 (ms)", false), client.label(), run.percentileMillis(0.99));
			report.add(new Metric(scenario + ": fairness (min/max per thread)", true), client.label(), run.fairness());
		}
		if (kind != Kind.SIMPLE) {
			clientFigures(report, client.label(), scenario, "acquisition", used, run.count());
		}
	}

	/**
	 * From the holder's {@code unlock()} to the waiter's {@code lock()} returning, measured both
	 * from the call and from its return (0 when the waiter held the lock before {@code unlock()}
	 * returned: a release can hand the lock over before it returns).
	 */
	void handoff(LockClient client, int rounds, Report report) throws Exception {
		handoff(client, client, "", rounds, report);
	}

	/** Like {@link #handoff(LockClient, int, Report)}, the waiter on a second client of its own. */
	void handoffBetweenClients(LockClient holderClient, LockClient waiterClient, int rounds, Report report)
			throws Exception {
		handoff(holderClient, waiterClient, ", two clients", rounds, report);
	}

	private void handoff(LockClient client, LockClient waiterClient, String between, int rounds, Report report)
			throws Exception {
		ExecutorService holder = Executors.newSingleThreadExecutor();
		ExecutorService waiter = Executors.newSingleThreadExecutor();
		long[] latencies = new long[rounds];
		long[] fromReturn = new long[rounds];
		try {
			for (int i = 0; i < rounds; i++) {
				holder.submit(() -> client.lock("bench:handoff")).get();
				CountDownLatch started = new CountDownLatch(1);
				Future<Long> acquiredAt = waiter.submit(() -> {
					started.countDown();
					waiterClient.lock("bench:handoff");
					long at = System.nanoTime();
					waiterClient.unlock("bench:handoff");
					return at;
				});
				started.await();
				// Let the waiter try, subscribe and go to sleep: the handoff measured is a wake-up.
				TimeUnit.MILLISECONDS.sleep(3);
				long[] released = holder.submit(() -> {
					long called = System.nanoTime();
					client.unlock("bench:handoff");
					return new long[] { called, System.nanoTime() };
				}).get();
				long acquired = acquiredAt.get();
				latencies[i] = Math.max(0, acquired - released[0]);
				fromReturn[i] = Math.max(0, acquired - released[1]);
			}
		}
		finally {
			holder.shutdownNow();
			waiter.shutdownNow();
		}
		Arrays.sort(latencies);
		Arrays.sort(fromReturn);
		int p99 = Math.min(rounds - 1, (int) (rounds * 0.99));
		report.add(new Metric("handoff" + between + ", unlock() called → waiter holds: p50 (µs)", false),
				client.label(), latencies[rounds / 2] / 1000.0);
		report.add(new Metric("handoff" + between + ", unlock() called → waiter holds: p99 (µs)", false),
				client.label(), latencies[p99] / 1000.0);
		report.add(new Metric("handoff" + between + ", unlock() returned → waiter holds: p50 (µs)", false),
				client.label(), fromReturn[rounds / 2] / 1000.0);
		report.add(new Metric("handoff" + between + ", unlock() returned → waiter holds: p99 (µs)", false),
				client.label(), fromReturn[p99] / 1000.0);
	}

	/** What a client costs before its first lock: threads, connections and time. */
	void weight(Function<String, LockClient> factory, String label, Report report) {
		int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
		long connectionsBefore = connectedClients();
		long start = System.nanoTime();
		LockClient client = factory.apply(redis.uri());
		client.lock("bench:weight");
		long createMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		client.unlock("bench:weight");
		report.add(new Metric("client weight: threads added", false), label,
				ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore);
		report.add(new Metric("client weight: connections opened", false), label, connectedClients() - connectionsBefore);
		report.add(new Metric("client weight: create + first lock (ms)", false), label, createMillis);
		client.close();
	}

	/**
	 * How long a parked thread takes to run once unparked, after it slept about {@code idleMicros}:
	 * the step in which a lock's hand-over wakes a sleeping waiter. A thread that slept long enough for
	 * its core to go idle can take much longer to wake on a machine with idle cores than on a busy one.
	 * The median of {@code rounds} wake-ups, in µs.
	 */
	static double wakeUpMicros(long idleMicros, int rounds) throws InterruptedException {
		long[] latencies = new long[rounds];
		AtomicLong unparkedAt = new AtomicLong();
		AtomicInteger woken = new AtomicInteger();
		CountDownLatch done = new CountDownLatch(1);
		Thread sleeper = new Thread(() -> {
			for (int round = 0; round < rounds; round++) {
				while (unparkedAt.get() == 0) {
					if (Thread.currentThread().isInterrupted()) {
						return;
					}
					LockSupport.park();
				}
				latencies[round] = System.nanoTime() - unparkedAt.getAndSet(0);
				woken.incrementAndGet();
			}
			done.countDown();
		}, "wake-up-probe");
		sleeper.setDaemon(true);
		sleeper.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		for (int round = 0; round < rounds && System.nanoTime() < deadline; round++) {
			// Let it park and its core settle, then wake it.
			long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(idleMicros);
			if (idleMicros >= 1000) {
				LockSupport.parkNanos(until - System.nanoTime());
			}
			while (System.nanoTime() < until) {
				Thread.onSpinWait();
			}
			unparkedAt.set(System.nanoTime());
			LockSupport.unpark(sleeper);
			while (woken.get() <= round && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
		}
		if (!done.await(1, TimeUnit.SECONDS)) {
			sleeper.interrupt();
			return Double.NaN;
		}
		Arrays.sort(latencies);
		return latencies[rounds / 2] / 1e3;
	}

	/** The ceiling: a no-op script by EVALSHA on one shared Lettuce connection. */
	void ceiling(int threads, Report report) throws Exception {
		try (NoOpScript noOp = new NoOpScript(redis)) {
			noOp.run(threads, warmupNanos);
			RedisCounters before = RedisCounters.read(redis);
			ClientCounters clientBefore = ClientCounters.read(ClientCounters.ioThreadPrefix(""));
			Run run = noOp.run(threads, runNanos);
			ClientCounters.Delta used = ClientCounters.read(ClientCounters.ioThreadPrefix("")).since(clientBefore);
			RedisCounters redisUsed = RedisCounters.read(redis).minus(before);
			String scenario = "ceiling: no-op EVALSHA, " + threads + " threads";
			report.add(new Metric(scenario + " (ops/s)", true), "", run.perSecond());
			// What one call costs each side, the figures the cost model divides an operation's by.
			report.add(new Metric(scenario + ": Redis CPU per call (µs)", false), "", redisUsed.cpuMicrosPer(run.count()));
			report.add(new Metric(scenario + ": Redis read events per call", false), "", redisUsed.readsPer(run.count()));
			report.add(new Metric(scenario + ": client CPU per call (µs)", false), "", used.cpuMicrosPer(run.count()));
			report.add(new Metric(scenario + ": event-loop CPU per call (µs)", false), "",
					used.busiestIoThreadCpuMicrosPer(run.count()));
			if (threads == 1) {
				// Once per repetition, beside the ceiling: a figure of the machine, as its round trip is.
				report.add(new Metric("wake-up of a thread parked for 50 µs: p50 (µs)", false), "", wakeUpMicros(50, 200));
				report.add(new Metric("wake-up of a thread parked for 2 ms: p50 (µs)", false), "", wakeUpMicros(2000, 200));
			}
		}
	}

	/** A no-op script called by EVALSHA on one shared, plain Lettuce connection: what Redis and the network allow. */
	private static final class NoOpScript implements AutoCloseable {

		private final RedisClient client;

		private final RedisCommands<String, String> commands;

		private final String sha;

		NoOpScript(RedisNode redis) {
			this.client = RedisClient.create(redis.uri());
			StatefulRedisConnection<String, String> connection = client.connect();
			this.commands = connection.sync();
			this.sha = commands.scriptLoad("return 1");
		}

		Run run(int threads, long nanos) throws Exception {
			return timed(threads, nanos, (thread, samples) -> {
				commands.evalsha(sha, ScriptOutputType.INTEGER);
				samples.add(0);
			});
		}

		@Override
		public void close() {
			client.shutdown();
		}

	}

	private long connectedClients() {
		String info = (String) redis.call("INFO", "clients");
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("connected_clients:")) {
				return Long.parseLong(line.substring("connected_clients:".length()).trim());
			}
		}
		return -1;
	}

	private Run loop(LockClient client, int threads, Kind kind, Function<Integer, String> key, long nanos)
			throws Exception {
		return timed(threads, nanos, (thread, samples) -> {
			String name = key.apply(thread);
			long start = System.nanoTime();
			switch (kind) {
				case REENTRANT -> client.lock(name);
				case FAIR -> client.lockFair(name);
				case SIMPLE -> client.lockSimple(name);
			}
			samples.add(System.nanoTime() - start);
			switch (kind) {
				case REENTRANT -> client.unlock(name);
				case FAIR -> client.unlockFair(name);
				case SIMPLE -> client.unlockSimple(name);
			}
		});
	}

	/** Which lock a scenario takes. */
	enum Kind {

		REENTRANT(""), FAIR("fair lock, "), SIMPLE("simple lock, ");

		/** What the scenario's name starts with. */
		final String prefix;

		Kind(String prefix) {
			this.prefix = prefix;
		}

	}

	@FunctionalInterface
	private interface Step {

		void run(int thread, Samples samples) throws Exception;

	}

	private static Run timed(int threads, long nanos, Step step) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		List<Future<Samples>> results = new ArrayList<>();
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		long[] window = new long[2];
		try {
			for (int t = 0; t < threads; t++) {
				int thread = t;
				results.add(pool.submit(() -> {
					Samples samples = new Samples();
					ready.countDown();
					go.await();
					long end = window[1];
					// At least one step each, even for a thread that a loaded machine starts late.
					do {
						step.run(thread, samples);
					}
					while (System.nanoTime() < end);
					return samples;
				}));
			}
			ready.await();
			window[0] = System.nanoTime();
			window[1] = window[0] + nanos;
			go.countDown();
			List<Samples> all = new ArrayList<>();
			for (Future<Samples> result : results) {
				all.add(result.get());
			}
			return new Run(all, System.nanoTime() - window[0]);
		}
		finally {
			pool.shutdownNow();
		}
	}

	/** One thread's latencies, in nanoseconds. */
	static final class Samples {

		private long[] values = new long[1024];

		private int size;

		void add(long value) {
			if (size == values.length) {
				values = Arrays.copyOf(values, size * 2);
			}
			values[size++] = value;
		}

	}

	/** What all threads of one timed run did. */
	record Run(List<Samples> threads, long elapsedNanos) {

		/** Both runs as one, as if one had followed the other. */
		Run plus(Run other) {
			List<Samples> all = new ArrayList<>(threads);
			all.addAll(other.threads);
			return new Run(all, elapsedNanos + other.elapsedNanos);
		}

		long count() {
			return threads.stream().mapToLong(samples -> samples.size).sum();
		}

		double perSecond() {
			return count() / (elapsedNanos / 1e9);
		}

		double percentileMillis(double percentile) {
			long[] all = threads.stream().flatMapToLong(samples -> Arrays.stream(samples.values, 0, samples.size)).sorted()
				.toArray();
			if (all.length == 0) {
				return Double.NaN;
			}
			return all[Math.min(all.length - 1, (int) (all.length * percentile))] / 1e6;
		}

		double fairness() {
			long min = threads.stream().mapToLong(samples -> samples.size).min().orElse(0);
			long max = threads.stream().mapToLong(samples -> samples.size).max().orElse(1);
			return (max == 0) ? 0 : (double) min / max;
		}

	}

}
