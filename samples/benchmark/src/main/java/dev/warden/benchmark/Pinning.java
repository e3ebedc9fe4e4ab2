package dev.warden.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Pins the {@code redis-server} processes the benchmark starts and the benchmark JVM itself to
 * disjoint CPU sets with {@code taskset}: Redis to the last CPU this process may run on, the JVM to
 * the others (on two cores: Redis on one, the JVM on the other), every thread of each, so that Redis
 * never waits behind the client for a core. Threads the JVM starts later inherit its set.
 */
final class Pinning {

	private static volatile boolean enabled;

	private static volatile List<Integer> redisCpus = List.of();

	private static volatile List<Integer> jvmCpus = List.of();

	private Pinning() {
	}

	/**
	 * Pins this JVM and makes {@link #pinRedis} pin the servers started from now on.
	 * @throws IllegalStateException when {@code taskset} is missing or fails, or this process may run
	 * on fewer than two CPUs
	 */
	static void enable() {
		long self = ProcessHandle.current().pid();
		List<Integer> allowed = affinity(self);
		if (allowed.size() < 2) {
			throw new IllegalStateException("--pin needs at least two CPUs, one for Redis and one for the benchmark; "
					+ "this process may run on " + allowed);
		}
		redisCpus = List.of(allowed.get(allowed.size() - 1));
		jvmCpus = List.copyOf(allowed.subList(0, allowed.size() - 1));
		taskset("-a", "-p", "-c", list(jvmCpus), Long.toString(self));
		enabled = true;
		System.out.println("Pinned: redis-server to CPU " + list(redisCpus) + ", the benchmark JVM to CPU " + list(jvmCpus));
	}

	static boolean enabled() {
		return enabled;
	}

	/** Pins every thread of the {@code redis-server} with this pid, when pinning is on. */
	static void pinRedis(long pid) {
		if (enabled) {
			taskset("-a", "-p", "-c", list(redisCpus), Long.toString(pid));
		}
	}

	/** How the report's first line says it. */
	static String describe() {
		return enabled ? "; redis-server pinned to CPU " + list(redisCpus) + ", the JVM to CPU " + list(jvmCpus) : "";
	}

	/** The CPUs {@code pid} may run on, from {@code taskset -p -c}: "pid 42's current affinity list: 0,1". */
	private static List<Integer> affinity(long pid) {
		String output = taskset("-p", "-c", Long.toString(pid)).trim();
		String cpus = output.substring(output.lastIndexOf(':') + 1).trim();
		List<Integer> all = new ArrayList<>();
		for (String part : cpus.split(",")) {
			String[] range = part.trim().split("-");
			int from = Integer.parseInt(range[0]);
			int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
			for (int cpu = from; cpu <= to; cpu++) {
				all.add(cpu);
			}
		}
		return all;
	}

	private static String list(List<Integer> cpus) {
		return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
	}

	private static String taskset(String... arguments) {
		List<String> command = new ArrayList<>();
		command.add("taskset");
		command.addAll(List.of(arguments));
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("--pin needs taskset (util-linux) on the PATH: " + ex.getMessage(), ex);
		}
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("--pin: " + String.join(" ", command) + " failed: " + output.trim());
			}
			return output;
		}
		catch (IOException ex) {
			throw new IllegalStateException("--pin: " + String.join(" ", command) + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("--pin: interrupted", ex);
		}
	}

}
