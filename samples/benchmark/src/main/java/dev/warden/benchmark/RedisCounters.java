package dev.warden.benchmark;

import dev.warden.test.redis.RedisNode;

/**
 * Redis's own counters, read before and after a measurement: commands executed (from
 * {@code INFO commandstats}, the harness's own INFO calls excluded) and CPU seconds used.
 *
 * @param commands commands executed so far
 * @param cpuSeconds user and system CPU used so far
 */
record RedisCounters(long commands, double cpuSeconds) {

	static RedisCounters read(RedisNode redis) {
		long commands = 0;
		for (String line : ((String) redis.call("INFO", "commandstats")).split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				int start = line.indexOf("calls=") + "calls=".length();
				int end = line.indexOf(',', start);
				commands += Long.parseLong(line.substring(start, end));
			}
		}
		double cpu = 0;
		for (String line : ((String) redis.call("INFO", "cpu")).split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return new RedisCounters(commands, cpu);
	}

	/** Commands per operation since {@code before}. */
	double commandsPer(RedisCounters before, double operations) {
		return (commands - before.commands) / operations;
	}

	/** Redis CPU microseconds per operation since {@code before}. */
	double cpuMicrosPer(RedisCounters before, double operations) {
		return (cpuSeconds - before.cpuSeconds) * 1e6 / operations;
	}

}
