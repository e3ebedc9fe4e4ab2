package dev.warden.benchmark;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * The benchmark JVM's own counters, read before and after a measurement, for figures that do not
 * depend on how many cores the machine has: the process's CPU time (Redis is another process; the
 * library not under test sits idle meanwhile), the bytes allocated by all its threads, and the CPU
 * time of each of the library's I/O threads (Lettuce's event loops for Warden, Redisson's Netty
 * threads), whose busiest share of the wall time says how close that thread is to being the limit.
 *
 * @param cpuNanos the process's CPU time so far
 * @param allocatedBytes bytes allocated so far by the threads alive now
 * @param ioThreadCpuNanos CPU time so far of each I/O thread, by thread id
 * @param wallNanos when it was read ({@link System#nanoTime()})
 */
record ClientCounters(long cpuNanos, long allocatedBytes, Map<Long, Long> ioThreadCpuNanos, long wallNanos) {

	private static final com.sun.management.ThreadMXBean THREADS =
			(com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

	/** Reads the counters; {@code ioThreadPrefix} names the library's I/O threads. */
	static ClientCounters read(String ioThreadPrefix) {
		long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
		long[] ids = THREADS.getAllThreadIds();
		long allocated = 0;
		for (long bytes : THREADS.getThreadAllocatedBytes(ids)) {
			allocated += Math.max(0, bytes);
		}
		Map<Long, Long> io = new HashMap<>();
		for (java.lang.management.ThreadInfo info : THREADS.getThreadInfo(ids)) {
			if (info != null && info.getThreadName().startsWith(ioThreadPrefix)) {
				io.put(info.getThreadId(), THREADS.getThreadCpuTime(info.getThreadId()));
			}
		}
		return new ClientCounters(cpu, allocated, io, System.nanoTime());
	}

	/** The prefix of the I/O threads of the library labelled {@code label}. */
	static String ioThreadPrefix(String label) {
		return label.startsWith("Redisson") ? "redisson-netty" : "lettuce-";
	}

	/** What was used since {@code before}. */
	Delta since(ClientCounters before) {
		Map<Long, Long> io = new HashMap<>();
		ioThreadCpuNanos.forEach((thread, cpu) -> {
			Long earlier = before.ioThreadCpuNanos.get(thread);
			if (earlier != null && earlier >= 0 && cpu >= 0) {
				io.put(thread, cpu - earlier);
			}
		});
		return new Delta(cpuNanos - before.cpuNanos, Math.max(0, allocatedBytes - before.allocatedBytes), io,
				wallNanos - before.wallNanos);
	}

	/**
	 * The counters' differences over one or more measured stretches.
	 *
	 * @param cpuNanos process CPU time
	 * @param allocatedBytes bytes allocated (by threads alive at both ends of each stretch)
	 * @param ioThreadCpuNanos CPU time of each I/O thread
	 * @param wallNanos wall time
	 */
	record Delta(long cpuNanos, long allocatedBytes, Map<Long, Long> ioThreadCpuNanos, long wallNanos) {

		Delta plus(Delta other) {
			Map<Long, Long> io = new HashMap<>(ioThreadCpuNanos);
			other.ioThreadCpuNanos.forEach((thread, cpu) -> io.merge(thread, cpu, Long::sum));
			return new Delta(cpuNanos + other.cpuNanos, allocatedBytes + other.allocatedBytes, io,
					wallNanos + other.wallNanos);
		}

		/** Client CPU microseconds per operation. */
		double cpuMicrosPer(double operations) {
			return cpuNanos / 1e3 / Math.max(1, operations);
		}

		/** Bytes allocated per operation. */
		double bytesPer(double operations) {
			return allocatedBytes / Math.max(1, operations);
		}

		/**
		 * The busiest I/O thread's CPU microseconds per operation: what one event loop spends on an
		 * operation, so that it can carry at most one operation per that many microseconds.
		 */
		double busiestIoThreadCpuMicrosPer(double operations) {
			long busiest = 0;
			for (long cpu : ioThreadCpuNanos.values()) {
				busiest = Math.max(busiest, cpu);
			}
			return busiest / 1e3 / Math.max(1, operations);
		}

		/** The busiest I/O thread's CPU time as a share of the wall time, in %. */
		double busiestIoThreadPercent() {
			long busiest = 0;
			for (long cpu : ioThreadCpuNanos.values()) {
				busiest = Math.max(busiest, cpu);
			}
			return 100.0 * busiest / Math.max(1, wallNanos);
		}

	}

}
