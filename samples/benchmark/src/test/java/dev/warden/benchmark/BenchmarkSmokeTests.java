package dev.warden.benchmark;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The benchmark runs end to end in a tiny configuration; its figures are not judged here. */
class BenchmarkSmokeTests {

	@Test
	void everyScenarioProducesFiguresForBothLibraries() throws Exception {
		// As the jar runs by default (the native epoll library is on this class path too).
		Transport.use("nio");
		Report metrics = new Report();
		Report transactions = new Report();
		Report coroutines = new Report();
		Report replicas = new Report();
		Report limits = new Report();
		Report report = Benchmark.run(40, 1, 200, 100, Set.of("ceiling", "locks", "weight", "delayed",
				"cluster", "metrics", "transactions", "coroutines", "replicas", "limits"), metrics, transactions, coroutines,
				replicas, limits);
		String table = report.markdown();
		assertThat(table).contains("| 8 threads, own keys: pairs/s |", "| handoff, unlock() called → waiter holds: p50 (µs) |",
				"| handoff, two clients, unlock() called → waiter holds: p99 (µs) |",
				"| client weight: connections opened |", "| ceiling: no-op EVALSHA, 8 threads (ops/s) |",
				"| 64 threads, own keys: share of the no-op ceiling (%) |");
		assertThat(report.median("1 thread, own keys: pairs/s", "Warden")).isPositive();
		assertThat(report.median("1 thread, own keys: pairs/s", "Redisson")).isPositive();
		assertThat(report.median("fair lock, 8 threads, one key: acquisitions/s", "Warden")).isPositive();
		for (String library : new String[] { "Warden", "Redisson" }) {
			assertThat(report.median("8 threads, own keys: client CPU per pair (µs)", library)).as(library).isPositive();
			assertThat(report.median("8 threads, one key: bytes allocated per acquisition", library)).as(library)
				.isPositive();
			assertThat(report.median("64 threads, own keys: busiest I/O thread busy (%)", library)).as(library)
				.isPositive();
			assertThat(report.median("delayed, 200 due at once: client CPU per task (µs)", library)).as(library)
				.isPositive();
		}
		// What the cost model reads, and its prediction from it.
		for (String library : new String[] { "Warden", "Redisson" }) {
			assertThat(report.median("1 thread, own keys: Redis scripts per pair", library)).as(library).isPositive();
			assertThat(report.median("1 thread, own keys: bytes on the wire per pair", library)).as(library).isPositive();
			assertThat(report.median("64 threads, own keys: Redis read events per pair", library)).as(library)
				.isPositive();
			assertThat(report.median("64 threads, own keys: event-loop CPU per pair (µs)", library)).as(library)
				.isPositive();
			assertThat(report.median("delayed, 200 due at once: while draining, Redis CPU per task (µs)", library))
				.as(library)
				.isPositive();
		}
		assertThat(report.median("ceiling: no-op EVALSHA, 64 threads: event-loop CPU per call (µs)", "")).isPositive();
		assertThat(report.median("wake-up of a thread parked for 2 ms: p50 (µs)", "")).isPositive();
		Report medians = Report.fromMedians(report.medians());
		assertThat(medians.median("8 threads, own keys: pairs/s", "Redisson"))
			.isEqualTo(report.median("8 threads, own keys: pairs/s", "Redisson"));
		assertThat(CostModel.applies(medians)).isTrue();
		assertThat(CostModel.describe(medians, new int[] { 16 })).contains("On 16 cores",
				"| 64 threads, own keys: pairs/s");
		for (String library : new String[] { "Warden", "Redisson" }) {
			assertThat(report.median(Benchmark.CLUSTER + ", 64 threads, own keys: pairs/s", library)).as(library)
				.isPositive();
			assertThat(report.median(Benchmark.CLUSTER + ", 8 threads, own keys: client CPU per pair (µs)", library))
				.as(library)
				.isPositive();
		}
		assertThat(report.median("simple lock, 8 threads, own keys: pairs/s", "Warden")).isPositive();
		assertThat(report.median("delayed, bytes per pending task (40-byte payload)", "Warden")).isPositive();
		assertThat(report.median("delayed, bytes per pending task (40-byte payload)", "Redisson")).isPositive();
		assertThat(metrics.median("8 threads, own keys, @DistributedLock: calls/s", MetricsScenarios.ON)).isPositive();
		assertThat(metrics.median("8 threads, own keys, @DistributedLock: calls/s", MetricsScenarios.OFF)).isPositive();
		assertThat(metrics.median("delayed, 200 due at once: drain rate (tasks/s)", MetricsScenarios.ON)).isPositive();
		assertThat(metrics.markdown(MetricsScenarios.ON, MetricsScenarios.OFF)).contains("| metrics on | metrics off |");
		assertThat(transactions.median("transaction with a schedule, 8 threads: transactions/s",
				TransactionScenarios.TRANSACTIONAL)).isPositive();
		assertThat(transactions.median("transaction with a schedule, 8 threads: transactions/s",
				TransactionScenarios.IMMEDIATE)).isPositive();
		assertThat(coroutines.median("@DistributedLock, 64 callers, one key: calls/s", CoroutineScenarios.COROUTINES))
			.isPositive();
		assertThat(coroutines.median("@DistributedLock, 64 callers, own keys: calls/s", CoroutineScenarios.THREADS))
			.isPositive();
		assertThat(replicas.median("schedules, 8 threads: schedules/s", ReplicaScenarios.CHECKED)).isPositive();
		assertThat(replicas.median("lock and unlock, 8 threads: pairs/s", ReplicaScenarios.UNCHECKED)).isPositive();
		for (String library : new String[] { RateLimitScenarios.WARDEN, RateLimitScenarios.REDISSON,
				RateLimitScenarios.BUCKET4J }) {
			assertThat(limits.median("rate limit, 64 threads, one key: decisions/s", library)).as(library).isPositive();
			assertThat(limits.median("rate limit, 64 threads, 750 keys: decisions/s", library)).as(library).isPositive();
		}
		assertThat(limits.markdown(RateLimitScenarios.WARDEN, RateLimitScenarios.REDISSON, RateLimitScenarios.BUCKET4J))
			.contains("| Warden | Redisson | Bucket4j | Warden / Redisson | Warden / Bucket4j |");
	}

}
