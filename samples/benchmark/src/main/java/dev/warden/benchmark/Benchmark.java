package dev.warden.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import dev.warden.benchmark.Report.Metric;
import dev.warden.benchmark.Scenarios.Kind;
import dev.warden.test.redis.RedisBinary;
import dev.warden.test.redis.RedisCluster;
import dev.warden.test.redis.RedisNode;

/**
 * Runs Warden and Redisson side by side against one loopback {@code redis-server} it starts
 * itself, alternating which goes first, several repetitions, and writes a Markdown table of
 * medians with their spread and the Warden/Redisson ratios.
 * <p>
 * Arguments: {@code --run-ms=N} (time per measured run, default 3000), {@code --repetitions=N}
 * (default 3), {@code --tasks=N} (delayed tasks per lateness run, default 10,000; ten times as many
 * for the memory run), {@code --spread-ms=N} (over how long their due times spread, default 5000),
 * {@code --output=PATH} (default {@code target/benchmark.md}), {@code --only=GROUPS} (a comma-separated
 * subset of {@code ceiling,locks,weight,delayed,cluster,metrics,transactions,coroutines,replicas,limits};
 * default all). The {@code cluster} group runs both libraries on a Redis Cluster of three masters
 * that it starts (own keys, 8 and 64 threads), in the main table. The {@code metrics} group measures Warden with its meters on and off, {@code transactions} a
 * schedule in a database transaction with and without following it, {@code replicas} schedules and
 * locks on a master with one replica with the replica check on and off, and {@code limits} the rate
 * limiters of Warden, Redisson and Bucket4j, in tables of their own. {@code --redis-server=PATH} runs
 * that {@code redis-server} binary (by default the one on the {@code PATH}, else the one bundled
 * with the embedded-redis jar). {@code --transport=epoll} runs both libraries on Netty's native
 * epoll transport instead of Java's NIO (x86-64 Linux). {@code --connections=N} gives Warden N
 * command connections (by default its own default, from the core count). {@code --pin} pins {@code redis-server} and this
 * JVM to disjoint CPUs ({@link Pinning}). The medians also go to {@code target/benchmark-medians.tsv};
 * {@code --model=PATH[,PATH...]} prints the {@link CostModel}'s prediction from such files (of several,
 * the median of their medians) without running anything, {@code --cores=16,64} for which core counts,
 * {@code --wake-us=N} for how much longer a sleeping waiter takes to wake there (default 0).
 * <p>
 * The build packages it as one runnable jar:
 * {@code java -jar samples/benchmark/target/warden-benchmark.jar --only=locks --redis-server=/usr/bin/redis-server}.
 */
public final class Benchmark {

	/** The row of how many event-loop threads Warden's calls spread over ({@link LockClient#connectionsInUse()}). */
	static final String CONNECTIONS_IN_USE = "own keys: command connections, each on an I/O thread of its own";

	private static final List<String> ALL_GROUPS = List.of("ceiling", "locks", "weight", "delayed", "cluster",
			"metrics", "transactions", "coroutines", "replicas", "limits");

	/** What the {@code cluster} group's rows start with. */
	static final String CLUSTER = "Redis Cluster of 3 masters";

	private Benchmark() {
	}

	/** The options this benchmark takes: the value ones with their '='. */
	private static final List<String> OPTIONS = List.of("--redis-server=", "--model=", "--cores=", "--wake-us=",
			"--transport=", "--connections=", "--pin", "--run-ms=", "--repetitions=", "--tasks=", "--spread-ms=", "--output=", "--only=");

	public static void main(String[] args) throws Exception {
		for (String arg : args) {
			if (OPTIONS.stream().noneMatch(option -> option.endsWith("=") ? arg.startsWith(option) : arg.equals(option))) {
				throw new IllegalArgumentException("Unknown option '" + arg + "'; the benchmark takes " + OPTIONS
						+ " (see the class javadoc and docs/benchmarks.md)");
			}
		}
		Set<String> unknownGroups = new TreeSet<>(Set.of(stringArgument(args, "--only=", "ceiling").split(",")));
		unknownGroups.removeAll(ALL_GROUPS);
		if (!unknownGroups.isEmpty()) {
			throw new IllegalArgumentException("Unknown group(s) " + unknownGroups + " in --only; the groups are " + ALL_GROUPS);
		}
		String server = stringArgument(args, "--redis-server=", "");
		if (!server.isBlank()) {
			System.setProperty(RedisBinary.SERVER_PROPERTY, server);
			System.out.println("Running " + server);
		}
		String model = stringArgument(args, "--model=", null);
		if (model != null) {
			// Only the prediction, from the medians earlier runs wrote (of several, their median).
			StringBuilder medians = new StringBuilder();
			for (String path : model.split(",")) {
				medians.append(Files.readString(Path.of(path))).append('\n');
			}
			System.out.println(CostModel.describe(Report.fromMedians(medians.toString()), cores(args),
					Double.parseDouble(stringArgument(args, "--wake-us=", "0"))));
			return;
		}
		Transport.use(stringArgument(args, "--transport=", "nio"));
		LockClient.CONNECTIONS[0] = (int) longArgument(args, "--connections=", 0);
		// The machine's, before pinning leaves this JVM fewer.
		int cores = Runtime.getRuntime().availableProcessors();
		if (List.of(args).contains("--pin")) {
			Pinning.enable();
		}
		long runMillis = longArgument(args, "--run-ms=", 3000);
		int repetitions = (int) longArgument(args, "--repetitions=", 3);
		int tasks = (int) longArgument(args, "--tasks=", 10_000);
		long spreadMillis = longArgument(args, "--spread-ms=", 5_000);
		Path output = Path.of(stringArgument(args, "--output=", "target/benchmark.md"));
		Set<String> groups = Set.of(stringArgument(args, "--only=", String.join(",", ALL_GROUPS)).split(","));
		Report metrics = new Report();
		Report transactions = new Report();
		Report coroutines = new Report();
		Report replicas = new Report();
		Report limits = new Report();
		Report report = run(runMillis, repetitions, tasks, spreadMillis, groups, metrics, transactions, coroutines,
				replicas, limits);
		String table = report.markdown();
		String text = "Warden vs Redisson on one loopback redis-server (" + redisVersion() + "), "
				+ cores + " cores, Java " + System.getProperty("java.version") + ", "
				+ Transport.describe() + " transport" + Pinning.describe() + "; "
				+ repetitions + " repetitions of " + runMillis + " ms per measurement, median (min–max); " + Instant.now()
				+ "\n\n" + ((report.size() > 0) ? table : "");
		if (metrics.size() > 0) {
			text += "\nWarden with its Micrometer meters off and on (SimpleMeterRegistry), alternating in one run:\n\n"
					+ metrics.markdown(MetricsScenarios.ON, MetricsScenarios.OFF);
		}
		if (transactions.size() > 0) {
			text += "\nWarden scheduling inside an H2 transaction, following it (the outbox) and at once, alternating "
					+ "in one run:\n\n"
					+ transactions.markdown(TransactionScenarios.TRANSACTIONAL, TransactionScenarios.IMMEDIATE);
		}
		if (coroutines.size() > 0) {
			text += "\nWarden's @DistributedLock on a Kotlin suspend fun, called by 64 coroutines on Dispatchers.Default ("
					+ Math.max(2, Runtime.getRuntime().availableProcessors()) + " threads), and on the same method not "
					+ "suspending, called by 64 threads, alternating in one run:\n\n"
					+ coroutines.markdown(CoroutineScenarios.COROUTINES, CoroutineScenarios.THREADS);
		}
		if (replicas.size() > 0) {
			text += "\nWarden on a master with one replica (both loopback), each write waiting for the replica's "
					+ "acknowledgement (the default where the master has a replica) and not, alternating in one run:\n\n"
					+ replicas.markdown(ReplicaScenarios.CHECKED, ReplicaScenarios.UNCHECKED);
		}
		if (limits.size() > 0) {
			text += "\nRate limiters of three libraries on the same Redis (Warden's DistributedRateLimiter, Redisson's "
					+ "RRateLimiter, Bucket4j's Lettuce proxy manager), one after the other in each repetition:\n\n"
					+ limits.markdown(RateLimitScenarios.WARDEN, RateLimitScenarios.REDISSON, RateLimitScenarios.BUCKET4J);
		}
		if (CostModel.applies(report)) {
			text += "\n" + CostModel.describe(report, cores(args));
		}
		Files.createDirectories(output.toAbsolutePath().getParent());
		Files.writeString(output, text, StandardCharsets.UTF_8);
		Path medians = output.resolveSibling(output.getFileName().toString().replaceFirst("\\.md$", "") + "-medians.tsv");
		Files.writeString(medians, report.medians(), StandardCharsets.UTF_8);
		Path chart = output.resolveSibling(output.getFileName().toString().replaceFirst("\\.md$", "") + ".png");
		Chart.write(report.comparisons(), chart);
		System.out.println(text);
		System.out.println("Written to " + output.toAbsolutePath() + ", " + chart.toAbsolutePath() + " and (the medians "
				+ "the cost model reads: --model=PATH) " + medians.toAbsolutePath());
	}

	/** Runs every scenario and returns the figures. */
	static Report run(long runMillis, int repetitions, int tasks, long spreadMillis) throws Exception {
		return run(runMillis, repetitions, tasks, spreadMillis, Set.copyOf(ALL_GROUPS), new Report(), new Report(),
				new Report(), new Report(), new Report());
	}

	/**
	 * Runs the scenarios of the given groups and returns the figures; those of the {@code metrics}
	 * group go to {@code metrics}, those of {@code transactions} to {@code transactions}, those of
	 * {@code coroutines} to {@code coroutines}, those of {@code replicas} to {@code replicas}, those of
	 * {@code limits} to {@code limits}.
	 */
	static Report run(long runMillis, int repetitions, int tasks, long spreadMillis, Set<String> groups,
			Report metrics, Report transactions, Report coroutines, Report replicas, Report limits) throws Exception {
		Report report = new Report();
		try (RedisNode redis = RedisNode.start(RedisNode.config().name("benchmark"));
				RedisCluster cluster = groups.contains("cluster") ? RedisCluster.start(3) : null) {
			Pinning.pinRedis(redis.pid());
			for (RedisNode node : (cluster != null) ? cluster.nodes() : List.<RedisNode>of()) {
				Pinning.pinRedis(node.pid());
			}
			Scenarios scenarios = new Scenarios(redis, runMillis);
			// Each round sleeps 3 ms: 500 rounds for a 2 s run, fewer for a short one.
			int handoffRounds = (int) Math.max(20, Math.min(500, runMillis / 4));
			List<Function<String, LockClient>> libraries = List.of(LockClient::warden, LockClient::redisson);
			for (int repetition = 0; repetition < repetitions; repetition++) {
				for (int threads : groups.contains("ceiling") ? new int[] { 1, 8, 64 } : new int[0]) {
					scenarios.ceiling(threads, report);
				}
				for (int i = 0; i < (groups.contains("locks") ? libraries.size() : 0); i++) {
					// Alternate which library goes first, so neither always runs on a warmer Redis.
					Function<String, LockClient> factory = libraries.get((i + repetition) % libraries.size());
					try (LockClient client = factory.apply(redis.uri())) {
						String label = client.label();
						if (label.equals("Warden")) {
							report.add(new Metric(CONNECTIONS_IN_USE, false), label, LockClient.connectionsInUse());
						}
						for (int threads : new int[] { 1, 8, 64 }) {
							measure(label, "uncontended " + threads,
									() -> scenarios.uncontended(client, threads, Kind.REENTRANT, report));
						}
						measure(label, "contended 8", () -> scenarios.contended(client, 8, Kind.REENTRANT, report));
						measure(label, "contended 64", () -> scenarios.contended(client, 64, Kind.REENTRANT, report));
						measure(label, "fair 8", () -> scenarios.contended(client, 8, Kind.FAIR, report));
						for (int threads : new int[] { 1, 8, 64 }) {
							measure(label, "simple uncontended " + threads,
									() -> scenarios.uncontended(client, threads, Kind.SIMPLE, report));
						}
						measure(label, "simple contended 8", () -> scenarios.contended(client, 8, Kind.SIMPLE, report));
						measure(label, "handoff", () -> scenarios.handoff(client, handoffRounds, report));
						measure(label, "handoff between clients", () -> {
							try (LockClient other = factory.apply(redis.uri())) {
								scenarios.handoffBetweenClients(client, other, handoffRounds, report);
							}
						});
					}
					redis.call("FLUSHALL");
				}
				if (groups.contains("weight")) {
					scenarios.weight(LockClient::warden, "Warden", report);
					scenarios.weight(LockClient::redisson, "Redisson", report);
				}
				List<Function<List<String>, LockClient>> onCluster = List.of(LockClient::wardenOnCluster,
						LockClient::redissonOnCluster);
				for (int i = 0; i < (cluster != null ? onCluster.size() : 0); i++) {
					try (LockClient client = onCluster.get((i + repetition) % onCluster.size()).apply(cluster.uris())) {
						for (int threads : new int[] { 8, 64 }) {
							measure(client.label(), "cluster " + threads,
									() -> scenarios.uncontendedOnCluster(client, threads, CLUSTER, report));
						}
					}
				}
				DelayedTaskScenarios delayed = new DelayedTaskScenarios(redis);
				List<String> order = (repetition % 2 == 0) ? List.of("Warden", "Redisson") : List.of("Redisson", "Warden");
				for (String label : groups.contains("delayed") ? order : List.<String>of()) {
					delayed.lateness(tasks, spreadMillis, label, report);
					delayed.lateness(tasks, 0, label, report);
					delayed.bytesPerTask(tasks * 10, label, report);
				}
				if (groups.contains("metrics")) {
					new MetricsScenarios(redis, runMillis).annotatedLocks(metrics);
					List<String> variants = (repetition % 2 == 0) ? List.of(MetricsScenarios.OFF, MetricsScenarios.ON)
							: List.of(MetricsScenarios.ON, MetricsScenarios.OFF);
					for (String variant : variants) {
						delayed.lateness(tasks, spreadMillis, variant, metrics);
						delayed.lateness(tasks, 0, variant, metrics);
					}
					redis.call("FLUSHALL");
				}
				if (groups.contains("transactions")) {
					new TransactionScenarios(redis, runMillis).schedules(transactions);
				}
				if (groups.contains("coroutines")) {
					new CoroutineScenarios(redis, runMillis).lockedCalls(coroutines);
				}
				if (groups.contains("replicas")) {
					new ReplicaScenarios(runMillis).writes(replicas);
				}
				if (groups.contains("limits")) {
					new RateLimitScenarios(redis, runMillis).decide(limits, repetition);
				}
			}
		}
		return report;
	}

	@FunctionalInterface
	private interface Measurement {

		void run() throws Exception;

	}

	/**
	 * Runs one measurement; when the library fails it (a client-side timeout under load, say), says
	 * so and goes on, so that one failure leaves a gap in that row instead of ending the run.
	 */
	private static void measure(String label, String scenario, Measurement measurement) throws InterruptedException {
		try {
			measurement.run();
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			System.err.println(label + " failed the " + scenario + " scenario in this repetition: " + ex);
		}
	}

	private static String redisVersion() {
		try (RedisNode probe = RedisNode.start(RedisNode.config().name("version-probe"))) {
			String info = (String) probe.call("INFO", "server");
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("redis_version:")) {
					return "Redis " + line.substring("redis_version:".length()).trim();
				}
			}
		}
		return "Redis";
	}

	/** The core counts to predict for: {@code --cores=16,64}, by default 16 and 64. */
	private static int[] cores(String[] args) {
		return Arrays.stream(stringArgument(args, "--cores=", "16,64").split(",")).mapToInt(Integer::parseInt)
			.toArray();
	}

	private static long longArgument(String[] args, String prefix, long otherwise) {
		String value = stringArgument(args, prefix, null);
		return (value != null) ? Long.parseLong(value) : otherwise;
	}

	private static String stringArgument(String[] args, String prefix, String otherwise) {
		for (String arg : args) {
			if (arg.startsWith(prefix)) {
				return arg.substring(prefix.length());
			}
		}
		return otherwise;
	}

}
