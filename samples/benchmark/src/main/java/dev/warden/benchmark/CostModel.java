package dev.warden.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A throughput model of both libraries, from what each operation costs (measured by the benchmark,
 * on any machine) and two figures of the machine to predict for (its no-op round trip and how fast
 * its cores are, both read off its no-op ceiling).
 * <p>
 * An operation (a lock and unlock pair, one contended acquisition, one task drained) costs
 * {@code n} round trips, {@code r} µs of Redis CPU, {@code e} µs of the busiest event loop's CPU and
 * {@code u} µs of the client's CPU. On a machine whose no-op call takes {@code t} µs from caller to
 * caller with one thread, and whose cores do the benchmark machine's work in {@code k} times its time,
 * {@code c} callers on {@code N} cores get at most:
 * <ul>
 * <li>the Redis bound {@code 1 / (k r)}: Redis runs its commands on one thread;</li>
 * <li>the event-loop bound {@code 1 / (k e)}: one connection's replies are read and its callers woken
 * by one thread;</li>
 * <li>the CPU bound {@code N / (k (u + r))}: client and Redis share the cores;</li>
 * <li>the latency bound {@code c / (n t + k s)}: each caller waits for its {@code n} round trips and for
 * {@code s}, the CPU its operation adds to them ({@code u + r} at one thread, less {@code n} no-op
 * calls' {@code u0 + r0});</li>
 * <li>for one contended key, the serialisation bound {@code 1 / (h (t + k s / n))}: the lock passes
 * from holder to holder through {@code h} round trips of the library's own (Warden: one, the release
 * that hands the lock to a sleeping waiter of its client, and one in 16 released plainly; Redisson:
 * two, the release and the next try).</li>
 * </ul>
 * The prediction is the least of them. {@code t = 1 / C1} and {@code k} comes from {@code C64}, the
 * target machine's no-op ceiling at one and at 64 threads, the only figures of that machine it uses:
 * the no-op call is itself bound by the largest of {@code k r0}, {@code k e0} and {@code k (u0 + r0) / N}.
 */
final class CostModel {

	/** The 16-core machine's no-op ceiling, calls/s at 1, 8 and 64 threads (Redis 7.2.6, Java 25). */
	static final double[] CEILING_16_CORES = { 31_000, 156_000, 165_000 };

	/** How many of Warden's contended releases hand the lock over: all but one in 16. */
	static final double WARDEN_CHAIN_ROUND_TRIPS = (15 * 1 + 1 * 2) / 16.0;

	/** Redisson's release, then the next lock try (the releaser's or a woken waiter's). */
	static final double REDISSON_CHAIN_ROUND_TRIPS = 2;

	private static final int[] THREADS = { 1, 8, 64 };

	private CostModel() {
	}

	/**
	 * The machine predicted for.
	 * @param roundTripMicros the no-op call's round trip with one caller, µs
	 * @param speed how many times the benchmark machine's CPU time the same work takes there
	 * @param cores its cores
	 */
	record Machine(double roundTripMicros, double speed, int cores) {
	}

	/**
	 * What one operation costs.
	 * @param roundTrips round trips a caller waits for
	 * @param redisMicros Redis CPU, µs
	 * @param loopMicros the busiest event loop's CPU, µs
	 * @param clientMicros the client's CPU, µs
	 * @param serialMicros CPU the operation adds to its round trips on the caller's path, µs
	 */
	record Costs(double roundTrips, double redisMicros, double loopMicros, double clientMicros, double serialMicros) {
	}

	/** One bound, in operations per second. */
	record Bound(String name, double perSecond) {
	}

	/** The bounds of one operation; the prediction is the least. */
	record Prediction(List<Bound> bounds) {

		double perSecond() {
			return binding().perSecond();
		}

		Bound binding() {
			return bounds.stream().min(Comparator.comparingDouble(Bound::perSecond)).orElseThrow();
		}

		/** How far the next bound is above the binding one, as a factor. */
		double headroom() {
			List<Double> sorted = bounds.stream().map(Bound::perSecond).sorted().toList();
			return (sorted.size() > 1) ? sorted.get(1) / sorted.get(0) : Double.POSITIVE_INFINITY;
		}

	}

	/** Independent callers, each doing its operations one after the other. */
	static Prediction throughput(Costs costs, int callers, Machine machine) {
		double k = machine.speed();
		return new Prediction(List.of(new Bound("Redis", 1e6 / (k * costs.redisMicros())),
				new Bound("event loop", 1e6 / (k * costs.loopMicros())),
				new Bound("CPU", machine.cores() * 1e6 / (k * (costs.clientMicros() + costs.redisMicros()))),
				new Bound("latency", callers * 1e6
						/ (costs.roundTrips() * machine.roundTripMicros() + k * costs.serialMicros()))));
	}

	/**
	 * Callers of one lock: the throughput bounds, and the serialisation bound of a hand-over chain of
	 * {@code chainRoundTrips} round trips, each as long as one of an uncontended pair's
	 * ({@code pair}).
	 */
	static Prediction serialised(Costs costs, Costs pair, double chainRoundTrips, Machine machine) {
		double k = machine.speed();
		double roundTrip = machine.roundTripMicros() + k * pair.serialMicros() / pair.roundTrips();
		List<Bound> bounds = new ArrayList<>(throughput(costs, Integer.MAX_VALUE, machine).bounds());
		bounds.removeIf(bound -> bound.name().equals("latency"));
		bounds.add(new Bound("hand-over chain", 1e6 / (chainRoundTrips * roundTrip)));
		return new Prediction(bounds);
	}

	/**
	 * The machine whose no-op ceiling was {@code ceiling1} calls/s with one caller and
	 * {@code ceiling64} with 64, from the no-op's costs measured here ({@code noOp64}: at 64 callers).
	 */
	static Machine machine(double ceiling1, double ceiling64, Costs noOp64, int cores) {
		double perCall = Math.max(Math.max(noOp64.redisMicros(), noOp64.loopMicros()),
				(noOp64.clientMicros() + noOp64.redisMicros()) / cores);
		return new Machine(1e6 / ceiling1, 1e6 / ceiling64 / perCall, cores);
	}

	/** Whether the report has what the model needs: the ceiling and locks groups. */
	static boolean applies(Report report) {
		return !Double.isNaN(report.median(ceiling(64, "event-loop CPU per call (µs)"), ""))
				&& !Double.isNaN(report.median("1 thread, own keys: Redis scripts per pair", "Warden"))
				&& !Double.isNaN(report.median("1 thread, own keys: Redis scripts per pair", "Redisson"));
	}

	private static String ceiling(int threads, String figure) {
		return "ceiling: no-op EVALSHA, " + threads + " threads: " + figure;
	}

	/** The no-op call's costs at {@code threads} callers. */
	static Costs noOp(Report report, int threads) {
		return new Costs(1, report.median(ceiling(threads, "Redis CPU per call (µs)"), ""),
				report.median(ceiling(threads, "event-loop CPU per call (µs)"), ""),
				report.median(ceiling(threads, "client CPU per call (µs)"), ""), 0);
	}

	/** A lock and unlock pair's costs at {@code threads} callers, each on its own key. */
	static Costs pair(Report report, String library, int threads) {
		String one = "1 thread, own keys: ";
		String scenario = threads + (threads == 1 ? " thread" : " threads") + ", own keys: ";
		double roundTrips = report.median(one + "Redis scripts per pair", library);
		return new Costs(roundTrips, report.median(scenario + "Redis CPU per pair (µs)", library),
				report.median(scenario + "event-loop CPU per pair (µs)", library),
				report.median(scenario + "client CPU per pair (µs)", library), serial(report, library));
	}

	/** What a pair adds to its round trips on the caller's path: its CPU with one caller, less as many no-op calls'. */
	private static double serial(Report report, String library) {
		String one = "1 thread, own keys: ";
		double roundTrips = report.median(one + "Redis scripts per pair", library);
		Costs noOp = noOp(report, 1);
		return Math.max(0, report.median(one + "client CPU per pair (µs)", library)
				+ report.median(one + "Redis CPU per pair (µs)", library)
				- roundTrips * (noOp.clientMicros() + noOp.redisMicros()));
	}

	/** One contended acquisition's costs, {@code prefix} naming the scenario ("8 threads, one key: "). */
	static Costs acquisition(Report report, String library, String prefix) {
		return new Costs(report.median(prefix + "Redis scripts per acquisition", library),
				report.median(prefix + "Redis CPU per acquisition (µs)", library),
				report.median(prefix + "event-loop CPU per acquisition (µs)", library),
				report.median(prefix + "client CPU per acquisition (µs)", library), 0);
	}

	/** One task's costs while a backlog drains. */
	static Costs drainedTask(Report report, String library) {
		String prefix = drainScenario(report) + ": while draining, ";
		return new Costs(report.median(prefix + "Redis read events per task", library),
				report.median(prefix + "Redis CPU per task (µs)", library),
				report.median(prefix + "event-loop CPU per task (µs)", library),
				report.median(prefix + "client CPU per task (µs)", library), 0);
	}

	private static String drainScenario(Report report) {
		for (int tasks : new int[] { 10_000, 1_000, 200 }) {
			String scenario = "delayed, " + tasks + " due at once";
			if (!Double.isNaN(report.median(scenario + ": while draining, Redis CPU per task (µs)", "Warden"))) {
				return scenario;
			}
		}
		return "delayed, 10000 due at once";
	}

	private static double chainRoundTrips(String library) {
		return library.equals("Warden") ? WARDEN_CHAIN_ROUND_TRIPS : REDISSON_CHAIN_ROUND_TRIPS;
	}

	/**
	 * The prediction for each core count, as Markdown: the machine's figures, then per row each
	 * library's bounds, the binding one, and Warden ÷ Redisson; for 16 cores against that machine's
	 * measured figures.
	 */
	static String describe(Report report, int[] coreCounts) {
		StringBuilder out = new StringBuilder();
		out.append("Cost model (calibrated on this run's per-operation costs; the target machine's no-op ceiling ")
			.append(format(CEILING_16_CORES[0])).append(" / ").append(format(CEILING_16_CORES[2]))
			.append(" calls/s at 1 / 64 threads, the 16-core machine's):\n\n");
		out.append(inputs(report));
		for (int cores : coreCounts) {
			Machine machine = machine(CEILING_16_CORES[0], CEILING_16_CORES[2], noOp(report, 64), 16);
			machine = new Machine(machine.roundTripMicros(), machine.speed(), cores);
			out.append('\n').append(predictions(report, machine));
		}
		return out.toString();
	}

	/** The per-operation costs the model reads, as a table. */
	static String inputs(Report report) {
		StringBuilder out = new StringBuilder(
				"| operation | round trips | Redis CPU (µs) | event-loop CPU (µs) | client CPU (µs) | serial CPU (µs) |\n"
						+ "|---|---|---|---|---|---|\n");
		for (int threads : THREADS) {
			row(out, "no-op call, " + threads + (threads == 1 ? " thread" : " threads"), noOp(report, threads));
		}
		for (String library : List.of("Warden", "Redisson")) {
			for (int threads : THREADS) {
				row(out, library + " pair, " + threads + (threads == 1 ? " thread" : " threads"),
						pair(report, library, threads));
			}
			for (String prefix : List.of("8 threads, one key: ", "64 threads, one key: ",
					"fair lock, 8 threads, one key: ")) {
				row(out, library + " acquisition, " + prefix.substring(0, prefix.length() - 2),
						acquisition(report, library, prefix));
			}
			row(out, library + " task drained", drainedTask(report, library));
		}
		return out.toString();
	}

	private static void row(StringBuilder out, String name, Costs costs) {
		out.append("| ").append(name).append(" | ").append(format(costs.roundTrips())).append(" | ")
			.append(format(costs.redisMicros())).append(" | ").append(format(costs.loopMicros())).append(" | ")
			.append(format(costs.clientMicros())).append(" | ").append(format(costs.serialMicros())).append(" |\n");
	}

	/** Every row's prediction on {@code machine}. */
	static String predictions(Report report, Machine machine) {
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT,
				"On %d cores (no-op round trip %.1f µs, CPU time ×%.2f of this machine's):%n%n", machine.cores(),
				machine.roundTripMicros(), machine.speed()));
		out.append("| row | Warden | bound | Redisson | bound | Warden ÷ Redisson |");
		boolean reference = machine.cores() == 16;
		if (reference) {
			out.append(" measured on 16 cores | error |");
		}
		out.append("\n|---|---|---|---|---|---|").append(reference ? "---|---|" : "").append('\n');
		double[] ceilings = new double[THREADS.length];
		for (int i = 0; i < THREADS.length; i++) {
			Prediction noOp = throughput(noOp(report, THREADS[i]), THREADS[i], machine);
			ceilings[i] = noOp.perSecond();
			out.append("| no-op ceiling, ").append(THREADS[i]).append(" threads (calls/s) | ").append(format(ceilings[i]))
				.append(" | ").append(noOp.binding().name()).append(" | | | |");
			if (reference) {
				out.append(' ').append(format(CEILING_16_CORES[i])).append(" | ")
					.append(error(ceilings[i], CEILING_16_CORES[i])).append(" |");
			}
			out.append('\n');
		}
		double[] shares16 = { 83, 73, 74 };
		double[] ratios16 = { 1.25, 1.39, 1.60 };
		for (int i = 0; i < THREADS.length; i++) {
			int threads = THREADS[i];
			Prediction warden = throughput(pair(report, "Warden", threads), threads, machine);
			Prediction redisson = throughput(pair(report, "Redisson", threads), threads, machine);
			String scenario = threads + (threads == 1 ? " thread" : " threads") + ", own keys";
			double share = 100 * warden.perSecond() / (ceilings[i] / 2);
			out.append("| ").append(scenario).append(": pairs/s (Warden: % of the no-op ceiling) | ")
				.append(format(warden.perSecond())).append(" (").append(String.format(Locale.ROOT, "%.0f %%", share))
				.append(") | ").append(bound(warden)).append(" | ").append(format(redisson.perSecond())).append(" | ")
				.append(bound(redisson)).append(" | ").append(ratio(warden.perSecond() / redisson.perSecond())).append(" |");
			if (reference) {
				out.append(' ').append(ratio(ratios16[i])).append(String.format(Locale.ROOT, " (%.0f %%)", shares16[i]))
					.append(" | ").append(error(warden.perSecond() / redisson.perSecond(), ratios16[i])).append(" (")
					.append(error(share, shares16[i])).append(") |");
			}
			out.append('\n');
		}
		String[] contended = { "8 threads, one key: ", "64 threads, one key: ", "fair lock, 8 threads, one key: " };
		double[] contended16 = { 0.98, 0.96, 2.39 };
		for (int i = 0; i < contended.length; i++) {
			Prediction warden = serialised(acquisition(report, "Warden", contended[i]), pair(report, "Warden", 1),
					chainRoundTrips("Warden"), machine);
			Prediction redisson = serialised(acquisition(report, "Redisson", contended[i]), pair(report, "Redisson", 1),
					chainRoundTrips("Redisson"), machine);
			double ratio = warden.perSecond() / redisson.perSecond();
			out.append("| ").append(contended[i], 0, contended[i].length() - 2).append(": acquisitions/s | ")
				.append(format(warden.perSecond())).append(" | ").append(bound(warden)).append(" | ")
				.append(format(redisson.perSecond())).append(" | ").append(bound(redisson)).append(" | ")
				.append(ratio(ratio)).append(" |");
			if (reference) {
				out.append(' ').append(ratio(contended16[i])).append(" | ").append(error(ratio, contended16[i])).append(" |");
			}
			out.append('\n');
		}
		Prediction warden = throughput(drainedTask(report, "Warden"), 8, machine);
		Prediction redisson = throughput(drainedTask(report, "Redisson"), 8, machine);
		double drain = warden.perSecond() / redisson.perSecond();
		out.append("| delayed, due at once: drain rate (tasks/s, 8 handlers) | ").append(format(warden.perSecond()))
			.append(" | ").append(bound(warden)).append(" | ").append(format(redisson.perSecond())).append(" | ")
			.append(bound(redisson)).append(" | ").append(ratio(drain)).append(" |");
		if (reference) {
			out.append(' ').append(ratio(1.71)).append(" | ").append(error(drain, 1.71)).append(" |");
		}
		out.append('\n');
		// Latencies and CPU per pair: a chain of the same round trips and wake-ups in both libraries,
		// and Redis's own work, carry over as they are measured.
		String[] called = { "handoff, two clients, unlock() called → waiter holds: p50 (µs)",
				"handoff, two clients, unlock() returned → waiter holds: p50 (µs)", "1 thread, own keys: Redis CPU per pair (µs)" };
		double[] called16 = { 1.10, 1.22, 0.65 };
		for (int i = 0; i < called.length; i++) {
			double ratio = report.median(called[i], "Warden") / report.median(called[i], "Redisson");
			out.append("| ").append(called[i]).append(" | | as measured | | as measured | ").append(ratio(ratio)).append(" |");
			if (reference) {
				out.append(' ').append(ratio(called16[i])).append(" | ").append(error(ratio, called16[i])).append(" |");
			}
			out.append('\n');
		}
		return out.toString();
	}

	private static String bound(Prediction prediction) {
		return prediction.binding().name() + String.format(Locale.ROOT, " (next ×%.2f)", prediction.headroom());
	}

	private static String ratio(double ratio) {
		return String.format(Locale.ROOT, "%.2f×", ratio);
	}

	private static String error(double predicted, double measured) {
		return String.format(Locale.ROOT, "%+.0f %%", 100 * (predicted / measured - 1));
	}

	private static String format(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		if (Math.abs(value) >= 10_000) {
			return String.format(Locale.ROOT, "%.1f k", value / 1000);
		}
		if (Math.abs(value) >= 100) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
