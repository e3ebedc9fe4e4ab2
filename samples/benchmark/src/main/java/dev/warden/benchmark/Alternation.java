package dev.warden.benchmark;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.warden.benchmark.Report.Metric;

/**
 * Two variants of one workload, measured in slices that alternate on the same machine state: a
 * slice of each to warm up, then pairs of slices, which goes first switching every pair. Each
 * variant's rate is its calls over the time its own slices took.
 */
final class Alternation {

	private Alternation() {
	}

	/** One thread's call; {@code thread} numbers the threads from 0. */
	@FunctionalInterface
	interface Work {

		void run(int thread) throws Exception;

	}

	/** A variant that runs its calls for a while, however it runs them, and says how many completed. */
	@FunctionalInterface
	interface Variant {

		long calls(long nanos) throws Exception;

	}

	/**
	 * Measures both variants and adds their calls per second to {@code report} under their labels.
	 * @param runNanos the time of all slices of one variant
	 */
	static void measure(Report report, Metric metric, int threads, long runNanos, int slices, String firstLabel,
			Work first, String secondLabel, Work second) throws Exception {
		measure(report, metric, runNanos, slices, firstLabel, nanos -> calls(first, threads, nanos), secondLabel,
				nanos -> calls(second, threads, nanos));
	}

	/**
	 * Measures two variants that run their calls their own way (on coroutines, say) and adds their
	 * calls per second to {@code report} under their labels.
	 * @param runNanos the time of all slices of one variant
	 */
	static void measure(Report report, Metric metric, long runNanos, int slices, String firstLabel, Variant first,
			String secondLabel, Variant second) throws Exception {
		measure(report, metric, null, runNanos, slices, firstLabel, first, secondLabel, second);
	}

	/**
	 * Like {@link #measure(Report, Metric, long, int, String, Variant, String, Variant)}, adding the
	 * CPU time this process spent per call under {@code cpuMetric} (µs; every thread of the JVM,
	 * Redis's own CPU not included), when it is not {@code null}.
	 */
	static void measure(Report report, Metric metric, Metric cpuMetric, long runNanos, int slices, String firstLabel,
			Variant first, String secondLabel, Variant second) throws Exception {
		long sliceNanos = runNanos / slices;
		first.calls(sliceNanos);
		second.calls(sliceNanos);
		long[] counts = new long[2];
		long[] nanos = new long[2];
		long[] cpuNanos = new long[2];
		for (int slice = 0; slice < slices; slice++) {
			for (int variant : (slice % 2 == 0) ? new int[] { 0, 1 } : new int[] { 1, 0 }) {
				long cpu = processCpuNanos();
				long started = System.nanoTime();
				counts[variant] += ((variant == 0) ? first : second).calls(sliceNanos);
				nanos[variant] += System.nanoTime() - started;
				cpuNanos[variant] += processCpuNanos() - cpu;
			}
		}
		report.add(metric, firstLabel, counts[0] / (nanos[0] / 1e9));
		report.add(metric, secondLabel, counts[1] / (nanos[1] / 1e9));
		if (cpuMetric != null) {
			report.add(cpuMetric, firstLabel, cpuNanos[0] / 1e3 / Math.max(1, counts[0]));
			report.add(cpuMetric, secondLabel, cpuNanos[1] / 1e3 / Math.max(1, counts[1]));
		}
	}

	/** The CPU time of this process so far. */
	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** Calls for {@code nanos} on {@code threads} threads; returns how many completed. */
	static long calls(Work work, int threads, long nanos) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			long deadline = System.nanoTime() + nanos;
			List<Future<Long>> counts = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				int number = thread;
				counts.add(pool.submit(() -> {
					long count = 0;
					while (System.nanoTime() - deadline < 0) {
						work.run(number);
						count++;
					}
					return count;
				}));
			}
			long total = 0;
			for (Future<Long> count : counts) {
				total += count.get();
			}
			return total;
		}
		finally {
			pool.shutdownNow();
		}
	}

}
