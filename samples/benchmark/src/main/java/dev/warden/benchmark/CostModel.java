package dev.warden.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import dev.warden.WardenDefaults;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * A throughput model of both libraries on one Redis: each row's rate on another machine, from what
 * one operation costs (measured by this benchmark, on any machine) and two figures of the machine
 * predicted for, read off its no-op ceiling. The equations, their inputs and how the prediction
 * compares with a 16-core machine's run are in {@code docs/cost-model.md}.
 * <p>
 * An operation (a lock and unlock pair, a contended acquisition, a drained task) costs {@code r} µs
 * of Redis CPU, {@code e} µs of its client's busiest event loop and {@code u} µs of its client's CPU,
 * each measured with the most callers the benchmark runs (a bound is a resource running flat out, and
 * a resource's cost per operation falls as operations share its reads, writes and wake-ups), and
 * with one caller takes {@code L} no-op round trips ({@code 2 / share} for a pair, from its share of
 * the no-op ceiling in slices that alternate with the no-op's). On a machine whose no-op round trip
 * takes {@code t} µs with one caller and whose CPU does this machine's work in {@code k} times its
 * time, {@code c} callers on {@code N} cores get at most:
 * <ul>
 * <li>the Redis bound {@code 1 / (k r)}: Redis runs the commands on one thread;</li>
 * <li>the event-loop bound {@code 1 / (k e)}: one thread reads a connection's replies and wakes its
 * callers;</li>
 * <li>the CPU bound {@code N / (k (u + r))}: client and Redis share the cores;</li>
 * <li>the latency bound {@code c / (L t)}: each caller waits for its own operation;</li>
 * <li>on one contended key, the hand-over bound {@code 1 / (h t L / n)}: the lock passes from holder to
 * holder through {@code h} round trips, each as long as one of an uncontended pair's {@code n}
 * (Warden: 1, the release that hands the lock to a sleeping waiter of its client, and one release
 * in 16 published; Redisson: 2, the release and the next try), instead of the latency bound;</li>
 * <li>draining a backlog, the consumer-chain bound {@code m / (R t + k (r + e))}, instead of the latency
 * bound: each of {@code m} consumers (Warden: its one claim loop; Redisson: 8 blocking pops) waits
 * for its request's round trip ({@code R} per task: Warden's one claim script per 6–8 tasks), Redis's
 * time on it and its event loop's handing the tasks over, one request after the other.</li>
 * </ul>
 * The prediction is the least of them. {@code t = 1 / C1} and {@code k = 1 / (C64 max(r0, e0, (u0 + r0)
 * / N))}, with {@code C1} and {@code C64} the target machine's no-op ceiling at one and 64 callers and
 * {@code r0, e0, u0} the no-op call's costs here: the only figures of that machine the model reads.
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
	 * @param wakeMicros how much longer than a round trip's own wake-ups it takes to wake a thread that
	 * slept through a turn of the other waiters (its core gone idle): paid on a hand-over chain whose
	 * lock always goes to such a sleeper (Warden's; Redisson's fair lock's); not derived from the
	 * ceiling, so 0 unless given
	 */
	record Machine(double roundTripMicros, double speed, int cores, double wakeMicros) {

		Machine(double roundTripMicros, double speed, int cores) {
			this(roundTripMicros, speed, cores, 0);
		}

	}

	/**
	 * What one operation costs.
	 * @param roundTrips round trips a caller waits for
	 * @param redisMicros Redis CPU, µs
	 * @param loopMicros the busiest event loop's CPU, µs
	 * @param clientMicros the client's CPU, µs
	 * @param latency how long one caller's operation takes, in no-op round trips: its round trips,
	 * lengthened by the work it adds to them
	 */
	record Costs(double roundTrips, double redisMicros, double loopMicros, double clientMicros, double latency) {
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
				new Bound("latency", callers * 1e6 / (costs.latency() * machine.roundTripMicros()))));
	}

	/**
	 * Callers of one lock: the throughput bounds, and the serialisation bound of a hand-over chain of
	 * {@code chainRoundTrips} round trips, each as long as one of an uncontended pair's
	 * ({@code pair}).
	 */
	static Prediction serialised(Costs costs, Costs pair, double chainRoundTrips, Machine machine) {
		return serialised(costs, pair, chainRoundTrips, 0, machine);
	}

	/**
	 * Like {@link #serialised(Costs, Costs, double, Machine)}, each hand-over also waiting
	 * {@code wakeMicros} for its successor to wake.
	 */
	static Prediction serialised(Costs costs, Costs pair, double chainRoundTrips, double wakeMicros, Machine machine) {
		double roundTrip = machine.roundTripMicros() * pair.latency() / pair.roundTrips();
		List<Bound> bounds = new ArrayList<>(throughput(costs, Integer.MAX_VALUE, machine).bounds());
		bounds.removeIf(bound -> bound.name().equals("latency"));
		bounds.add(new Bound("hand-over chain", 1e6 / (chainRoundTrips * roundTrip + wakeMicros)));
		return new Prediction(bounds);
	}

	/**
	 * Consumers draining a backlog: the throughput bounds, and instead of the latency bound the
	 * consumers' chain. Each of {@code consumers} consumers asks Redis for tasks, waits for the reply,
	 * hands the tasks to its handlers, and asks again (Warden: one claim loop, its handlers' completions
	 * riding on its next claim; Redisson: a blocking pop per task and handler). Per task, a consumer's
	 * chain is its share of a request's round trip ({@code roundTrips} no-op round trips per task: one
	 * per request, over the tasks a request brings), the Redis time of its request ({@code k r}) and the
	 * event loop's time to read the reply and hand the tasks over ({@code k e}); so at most
	 * {@code consumers / (roundTrips t + k (r + e))} tasks/s.
	 */
	static Prediction drain(Costs task, int consumers, Machine machine) {
		List<Bound> bounds = new ArrayList<>(throughput(task, Integer.MAX_VALUE, machine).bounds());
		bounds.removeIf(bound -> bound.name().equals("latency"));
		double chainMicros = task.roundTrips() * machine.roundTripMicros()
				+ machine.speed() * (task.redisMicros() + task.loopMicros());
		bounds.add(new Bound("consumer chain", consumers * 1e6 / chainMicros));
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

	/**
	 * The no-op call: one round trip, and what its resources spend on it when 64 callers keep them
	 * busy (a bound is a resource running flat out; its cost per call falls as calls share its reads,
	 * writes and wake-ups, down to what it is with the most calls in flight).
	 */
	static Costs noOp(Report report) {
		return new Costs(1, report.median(ceiling(64, "Redis CPU per call (µs)"), ""),
				report.median(ceiling(64, "event-loop CPU per call (µs)"), ""),
				report.median(ceiling(64, "client CPU per call (µs)"), ""), 1);
	}

	/**
	 * A lock and unlock pair, each caller on its own key: its scripts, its resources' costs with 64
	 * callers, and its latency with one caller in no-op round trips, from the share of the no-op
	 * ceiling it reached in slices alternating with the no-op's ({@code 2 / share}: a pair is two
	 * round trips).
	 */
	static Costs pair(Report report, String library) {
		String one = "1 thread, own keys: ";
		String many = "64 threads, own keys: ";
		double roundTrips = report.median(one + "Redis scripts per pair", library);
		// Never fewer than its round trips: a share above 100 % is the no-op's slices slowed by something else.
		double latency = Math.max(roundTrips, 2 / (report.median(one + "share of the no-op ceiling (%)", library) / 100));
		return new Costs(roundTrips, report.median(many + "Redis CPU per pair (µs)", library),
				report.median(many + "event-loop CPU per pair (µs)", library),
				report.median(many + "client CPU per pair (µs)", library), latency);
	}

	/**
	 * How many event-loop threads Warden's own-key pairs were spread over in the run: its command
	 * connections, at most the client's I/O threads ({@code 1} for a run that did not say, from before
	 * Warden had several).
	 */
	static double connectionsInUse(Report report) {
		double inUse = report.median(Benchmark.CONNECTIONS_IN_USE, "Warden");
		return Double.isNaN(inUse) ? 1 : inUse;
	}

	/**
	 * {@code pair} measured with its calls spread over {@code measured} event loops, on {@code target}
	 * of them: the busiest loop's share of the pairs, and so its CPU per pair, scales with
	 * {@code measured / target} (keys spread evenly over the connections, as the own-key callers' do).
	 */
	static Costs onConnections(Costs pair, double measured, double target) {
		return new Costs(pair.roundTrips(), pair.redisMicros(), pair.loopMicros() * measured / target,
				pair.clientMicros(), pair.latency());
	}

	/**
	 * One contended acquisition of the lock of {@code scenario} ("8 threads, one key"): its resources'
	 * costs with the most callers measured (64 on one key; the fair lock's 8).
	 */
	static Costs acquisition(Report report, String library, String scenario) {
		String prefix = (scenario.startsWith("fair") ? scenario : "64 threads, one key") + ": ";
		return new Costs(report.median(scenario + ": Redis scripts per acquisition", library),
				report.median(prefix + "Redis CPU per acquisition (µs)", library),
				report.median(prefix + "event-loop CPU per acquisition (µs)", library),
				report.median(prefix + "client CPU per acquisition (µs)", library), Double.NaN);
	}

	/**
	 * One task while a backlog drains: its requests (read events) and resources' costs; a handler
	 * waits a round trip per request.
	 */
	static Costs drainedTask(Report report, String library) {
		String prefix = drainScenario(report) + ": while draining, ";
		double reads = report.median(prefix + "Redis read events per task", library);
		return new Costs(reads, report.median(prefix + "Redis CPU per task (µs)", library),
				report.median(prefix + "event-loop CPU per task (µs)", library),
				report.median(prefix + "client CPU per task (µs)", library), reads);
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
	 * The prediction for each core count, as Markdown: the costs it starts from, then per row each
	 * library's prediction and binding bound, and Warden ÷ Redisson; for 16 cores against that
	 * machine's measured figures.
	 */
	static String describe(Report report, int[] coreCounts) {
		return describe(report, coreCounts, 0);
	}

	/**
	 * Like {@link #describe(Report, int[])}, for a machine whose sleepers take {@code wakeMicros}
	 * longer to wake ({@link Machine#wakeMicros()}).
	 */
	static String describe(Report report, int[] coreCounts, double wakeMicros) {
		StringBuilder out = new StringBuilder();
		out.append("Cost model: this run's per-operation costs, on a machine whose no-op ceiling is ")
			.append(format(CEILING_16_CORES[0])).append(" / ").append(format(CEILING_16_CORES[2]))
			.append(" calls/s at 1 / 64 threads (the 16-core machine's; its only figures the model reads):\n\n");
		out.append(inputs(report));
		Machine anchor = machine(CEILING_16_CORES[0], CEILING_16_CORES[2], noOp(report), 16);
		for (int cores : coreCounts) {
			out.append('\n')
				.append(predictions(report, new Machine(anchor.roundTripMicros(), anchor.speed(), cores, wakeMicros)));
		}
		return out.toString();
	}

	/** The per-operation costs the model reads, as a table. */
	static String inputs(Report report) {
		StringBuilder out = new StringBuilder("| operation | round trips | latency, 1 caller (no-op round trips) "
				+ "| Redis CPU (µs) | event-loop CPU (µs) | client CPU (µs) |\n|---|---|---|---|---|---|\n");
		row(out, "no-op call (64 callers)", noOp(report));
		for (String library : List.of("Warden", "Redisson")) {
			row(out, library + ": lock and unlock pair, own keys (64 callers)", pair(report, library));
			row(out, library + ": acquisition, one key (64 callers)", acquisition(report, library, "8 threads, one key"));
			row(out, library + ": acquisition, fair lock, one key (8 callers)",
					acquisition(report, library, "fair lock, 8 threads, one key"));
			row(out, library + ": task drained (8 handlers)", drainedTask(report, library));
		}
		return out.toString();
	}

	private static void row(StringBuilder out, String name, Costs costs) {
		out.append("| ").append(name).append(" | ").append(format(costs.roundTrips())).append(" | ")
			.append(format(costs.latency())).append(" | ").append(format(costs.redisMicros())).append(" | ")
			.append(format(costs.loopMicros())).append(" | ").append(format(costs.clientMicros())).append(" |\n");
	}

	/** One row of the 16-core machine's figures: Warden ÷ Redisson, and Warden's share of the ceiling where given. */
	private record Measured(double ratio, double share) {
	}

	/** Every row's prediction on {@code machine}. */
	static String predictions(Report report, Machine machine) {
		boolean reference = machine.cores() == 16;
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT,
				"On %d cores (no-op round trip %.1f µs, CPU time ×%.2f this machine's, a sleeper's wake-up +%.0f µs):%n%n",
				machine.cores(), machine.roundTripMicros(), machine.speed(), machine.wakeMicros()));
		out.append("| row | Warden | binding bound | Redisson | binding bound | Warden ÷ Redisson |")
			.append(reference ? " measured on 16 cores (own keys: Warden, % of ceiling; Redisson) | error (Warden; Redisson) |" : "").append("\n|---|---|---|---|---|---|")
			.append(reference ? "---|---|" : "").append('\n');
		double[] ceilings = new double[THREADS.length];
		for (int i = 0; i < THREADS.length; i++) {
			Prediction noOp = throughput(noOp(report), THREADS[i], machine);
			ceilings[i] = noOp.perSecond();
			out.append("| no-op ceiling, ").append(THREADS[i]).append(" threads (calls/s) | ").append(format(ceilings[i]))
				.append(" | ").append(bound(noOp)).append(" | | | |");
			if (reference) {
				out.append(' ').append(format(CEILING_16_CORES[i])).append(" | ")
					.append(error(ceilings[i], CEILING_16_CORES[i])).append(" |");
			}
			out.append('\n');
		}
		Measured[] ownKeys = { new Measured(1.25, 83), new Measured(1.39, 73), new Measured(1.60, 74) };
		// The 16-core run had Warden on one command connection: these rows predict that.
		Costs wardenPair = onConnections(pair(report, "Warden"), connectionsInUse(report), 1);
		for (int i = 0; i < THREADS.length; i++) {
			int threads = THREADS[i];
			Prediction warden = throughput(wardenPair, threads, machine);
			Prediction redisson = throughput(pair(report, "Redisson"), threads, machine);
			double share = 100 * warden.perSecond() / (ceilings[i] / 2);
			double ratio = warden.perSecond() / redisson.perSecond();
			out.append("| ").append(threads).append(threads == 1 ? " thread" : " threads")
				.append(", own keys: pairs/s (Warden's % of the no-op ceiling) | ").append(format(warden.perSecond()))
				.append(String.format(Locale.ROOT, " (%.0f %%)", share)).append(" | ").append(bound(warden)).append(" | ")
				.append(format(redisson.perSecond())).append(" | ").append(bound(redisson)).append(" | ")
				.append(ratio(ratio)).append(" |");
			if (reference) {
				// The 16-core machine's pairs/s: Warden's share of its ceiling, Redisson's from the ratio.
				double wardenThere = ownKeys[i].share() / 100 * CEILING_16_CORES[i] / 2;
				double redissonThere = wardenThere / ownKeys[i].ratio();
				out.append(' ').append(ratio(ownKeys[i].ratio()))
					.append(String.format(Locale.ROOT, " (%s, %.0f %%; %s)", format(wardenThere), ownKeys[i].share(),
							format(redissonThere)))
					.append(" | ").append(error(ratio, ownKeys[i].ratio())).append(" (")
					.append(error(warden.perSecond(), wardenThere)).append("; ")
					.append(error(redisson.perSecond(), redissonThere)).append(") |");
			}
			out.append('\n');
		}
		int connections = WardenDefaults.connections(machine.cores());
		double inUse = Math.min(connections, Math.max(DefaultClientResources.MIN_IO_THREADS, machine.cores()));
		Costs spread = onConnections(pair(report, "Warden"), connectionsInUse(report), inUse);
		for (int i = 1; i < THREADS.length; i++) {
			Prediction warden = throughput(spread, THREADS[i], machine);
			Prediction redisson = throughput(pair(report, "Redisson"), THREADS[i], machine);
			out.append("| ").append(THREADS[i]).append(" threads, own keys, Warden on its default ").append(connections)
				.append(" command connections: pairs/s (% of the no-op ceiling) | ").append(format(warden.perSecond()))
				.append(String.format(Locale.ROOT, " (%.0f %%)", 100 * warden.perSecond() / (ceilings[i] / 2)))
				.append(" | ").append(bound(warden)).append(" | ").append(format(redisson.perSecond())).append(" | ")
				.append(bound(redisson)).append(" | ").append(ratio(warden.perSecond() / redisson.perSecond())).append(" |")
				.append(reference ? " | |" : "").append('\n');
		}
		String[] contended = { "8 threads, one key", "64 threads, one key", "fair lock, 8 threads, one key" };
		double[] contended16 = { 0.98, 0.96, 2.39 };
		for (int i = 0; i < contended.length; i++) {
			// A sleeper's wake-up is on the chain where the lock always goes to a sleeping waiter: Warden's
			// hand-overs, and Redisson's fair lock (its next in line, woken by a message of its own).
			Prediction warden = serialised(acquisition(report, "Warden", contended[i]), pair(report, "Warden"),
					chainRoundTrips("Warden"), machine.wakeMicros(), machine);
			Prediction redisson = serialised(acquisition(report, "Redisson", contended[i]), pair(report, "Redisson"),
					chainRoundTrips("Redisson"), contended[i].startsWith("fair") ? machine.wakeMicros() : 0, machine);
			line(out, contended[i] + ": acquisitions/s", warden, redisson, reference ? contended16[i] : Double.NaN);
		}
		// Warden: one claim loop; Redisson: a consumer per handler, 8.
		line(out, "delayed, due at once: drain rate (tasks/s)", drain(drainedTask(report, "Warden"), 1, machine),
				drain(drainedTask(report, "Redisson"), 8, machine), reference ? 1.71 : Double.NaN);
		// Carried over as measured: a hand-over between clients is the same chain of round trips and
		// wake-ups in both libraries, and Redis's CPU per pair is Redis's own work.
		String[] asMeasured = { "handoff, two clients, unlock() called → waiter holds: p50 (µs)",
				"handoff, two clients, unlock() returned → waiter holds: p50 (µs)",
				"1 thread, own keys: Redis CPU per pair (µs)" };
		double[] asMeasured16 = { 1.10, 1.22, 0.65 };
		for (int i = 0; i < asMeasured.length; i++) {
			double ratio = report.median(asMeasured[i], "Warden") / report.median(asMeasured[i], "Redisson");
			out.append("| ").append(asMeasured[i]).append(" | ").append(format(report.median(asMeasured[i], "Warden")))
				.append(" | as measured | ").append(format(report.median(asMeasured[i], "Redisson")))
				.append(" | as measured | ").append(ratio(ratio)).append(" |");
			if (reference) {
				out.append(' ').append(ratio(asMeasured16[i])).append(" | ").append(error(ratio, asMeasured16[i]))
					.append(" |");
			}
			out.append('\n');
		}
		return out.toString();
	}

	private static void line(StringBuilder out, String row, Prediction warden, Prediction redisson, double measured) {
		double ratio = warden.perSecond() / redisson.perSecond();
		out.append("| ").append(row).append(" | ").append(format(warden.perSecond())).append(" | ").append(bound(warden))
			.append(" | ").append(format(redisson.perSecond())).append(" | ").append(bound(redisson)).append(" | ")
			.append(ratio(ratio)).append(" |");
		if (!Double.isNaN(measured)) {
			out.append(' ').append(ratio(measured)).append(" | ").append(error(ratio, measured)).append(" |");
		}
		out.append('\n');
	}

	private static String bound(Prediction prediction) {
		Bound binding = prediction.binding();
		List<Bound> others = prediction.bounds().stream().filter(bound -> bound != binding)
			.sorted(Comparator.comparingDouble(Bound::perSecond)).toList();
		return binding.name() + (others.isEmpty() ? ""
				: String.format(Locale.ROOT, " (then %s, ×%.2f)", others.get(0).name(), prediction.headroom()));
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
