package dev.warden.benchmark;

import dev.warden.test.redis.RedisNode;

/**
 * Redis's own counters, read before and after a measurement: commands executed (from
 * {@code INFO commandstats}, the harness's own INFO calls excluded; a script's own calls count too),
 * scripts run ({@code EVAL}, {@code EVALSHA} and their read-only forms), CPU seconds used, read
 * events handled ({@code total_reads_processed}: one per request when one is in flight, fewer when
 * requests arrive together) and bytes received and sent ({@code total_net_input_bytes},
 * {@code total_net_output_bytes}).
 *
 * @param commands commands executed so far
 * @param scripts scripts run so far
 * @param cpuSeconds user and system CPU used so far
 * @param reads read events handled so far
 * @param bytesIn bytes received so far
 * @param bytesOut bytes sent so far
 */
record RedisCounters(long commands, long scripts, double cpuSeconds, long reads, long bytesIn, long bytesOut) {

	/** What reading the counters itself adds to the reads and bytes (the INFO connections and replies). */
	private static volatile RedisCounters overhead = new RedisCounters(0, 0, 0, 0, 0, 0);

	static RedisCounters read(RedisNode redis) {
		long commands = 0;
		long scripts = 0;
		for (String line : ((String) redis.call("INFO", "commandstats")).split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				int start = line.indexOf("calls=") + "calls=".length();
				int end = line.indexOf(',', start);
				long calls = Long.parseLong(line.substring(start, end));
				commands += calls;
				if (line.startsWith("cmdstat_eval") || line.startsWith("cmdstat_fcall")) {
					scripts += calls;
				}
			}
		}
		double cpu = 0;
		for (String line : ((String) redis.call("INFO", "cpu")).split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		long reads = 0;
		long in = 0;
		long out = 0;
		for (String line : ((String) redis.call("INFO", "stats")).split("\r?\n")) {
			String value = line.substring(line.indexOf(':') + 1).trim();
			if (line.startsWith("total_reads_processed:")) {
				reads = Long.parseLong(value);
			}
			else if (line.startsWith("total_net_input_bytes:")) {
				in = Long.parseLong(value);
			}
			else if (line.startsWith("total_net_output_bytes:")) {
				out = Long.parseLong(value);
			}
		}
		return new RedisCounters(commands, scripts, cpu, reads, in, out);
	}

	/**
	 * Measures what one {@link #read} adds to the reads and bytes, to take it off the figures below:
	 * the difference between two reads with nothing else going on.
	 */
	static void calibrate(RedisNode redis) {
		read(redis);
		RedisCounters first = read(redis);
		RedisCounters second = read(redis);
		overhead = new RedisCounters(0, 0, 0, second.reads - first.reads, second.bytesIn - first.bytesIn,
				second.bytesOut - first.bytesOut);
	}

	/** Commands per operation since {@code before}. */
	double commandsPer(RedisCounters before, double operations) {
		return (commands - before.commands) / operations;
	}

	/** Redis CPU microseconds per operation since {@code before}. */
	double cpuMicrosPer(RedisCounters before, double operations) {
		return (cpuSeconds - before.cpuSeconds) * 1e6 / operations;
	}

	/** What was used since {@code before}, what one reading adds to the reads and bytes taken off. */
	RedisCounters minus(RedisCounters before) {
		return new RedisCounters(commands - before.commands, scripts - before.scripts, cpuSeconds - before.cpuSeconds,
				Math.max(0, reads - before.reads - overhead.reads), Math.max(0, bytesIn - before.bytesIn - overhead.bytesIn),
				Math.max(0, bytesOut - before.bytesOut - overhead.bytesOut));
	}

	/** Both differences together. */
	RedisCounters plus(RedisCounters other) {
		return new RedisCounters(commands + other.commands, scripts + other.scripts, cpuSeconds + other.cpuSeconds,
				reads + other.reads, bytesIn + other.bytesIn, bytesOut + other.bytesOut);
	}

	// Per operation, on a difference (from minus or plus).

	double commandsPer(double operations) {
		return commands / Math.max(1, operations);
	}

	double scriptsPer(double operations) {
		return scripts / Math.max(1, operations);
	}

	double cpuMicrosPer(double operations) {
		return cpuSeconds * 1e6 / Math.max(1, operations);
	}

	double readsPer(double operations) {
		return reads / Math.max(1, operations);
	}

	double wireBytesPer(double operations) {
		return (bytesIn + bytesOut) / Math.max(1, operations);
	}

	/** Nothing used: the start of a sum of differences. */
	static final RedisCounters ZERO = new RedisCounters(0, 0, 0, 0, 0, 0);

}
