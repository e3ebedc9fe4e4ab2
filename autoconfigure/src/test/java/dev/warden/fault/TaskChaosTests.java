package dev.warden.fault;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks due over a few seconds in eight waves, three consumer processes, the oldest of them killed
 * ({@code SIGKILL}) while each wave runs and a new one started in its place (not awaited: it joins
 * when it is up), and Redis itself killed and restarted once, every consumer up,
 * with a wave pending (AOF, fsync on every write): every task runs, none before its due time, and a task runs twice only when the
 * process running it was killed, or Redis was killed while its completion was on the way. The
 * counts are printed. {@code -Pchaos-soak} runs 20,000 tasks over 20 s.
 */
class TaskChaosTests {

	private static final int TASKS = Integer.getInteger("warden.chaos.tasks", 2_000);

	private static final int SECONDS = Integer.getInteger("warden.chaos.seconds", 5);

	private static final long VISIBILITY_MILLIS = 2_000;

	private static final long LEAD_MILLIS = 1_000;

	private static final int WAVES = 8;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final List<ForkedJvm> consumers = new ArrayList<>();

	private final List<ForkedJvm> killed = new ArrayList<>();

	/** The consumers that have printed READY: each is started without waiting, and awaited before it is killed. */
	private final Set<ForkedJvm> ready = new HashSet<>();

	@AfterEach
	void stopConsumers() {
		consumers.forEach(ForkedJvm::close);
		killed.forEach(ForkedJvm::close);
	}

	@Test
	void everyTaskRunsNoneEarlyAndDuplicatesOnlyWhereSomethingDied() throws Exception {
		try (RedisNode redis = RedisNode.start(RedisNode.config()
			.name("chaos")
			.appendOnly(true)
			.option("appendfsync", "always"))) {
			for (int i = 0; i < 3; i++) {
				consumers.add(startConsumer(redis, "consumer-" + i));
			}
			Warden producer = clients.open(redis);
			DelayedQueue<String> queue = producer.getDelayedQueue("chaos", String.class);

			// Paced by progress, not by the clock, so that a slow machine sees the same chaos: the
			// tasks come in WAVES, each due over its share of SECONDS from LEAD after it is scheduled.
			// A consumer dies once a quarter of each wave has run, and Redis dies once, just after the
			// middle wave is scheduled and before any of it is due.
			Map<String, List<long[]>> runs = new HashMap<>();
			List<long[]> deaths = new ArrayList<>();
			int perWave = TASKS / WAVES;
			long window = SECONDS * 1_000L / WAVES;
			int leftWhenRedisKilled = -1;
			for (int wave = 0; wave < WAVES; wave++) {
				if (wave == WAVES / 2) {
					// A consumer still starting would die of the coming outage before it printed READY.
					for (ForkedJvm consumer : consumers) {
						awaitReady(consumer, runs);
					}
				}
				long start = System.currentTimeMillis() + LEAD_MILLIS;
				for (int j = 0; j < perWave; j++) {
					long due = Math.max(start + j * window / perWave, System.currentTimeMillis() + LEAD_MILLIS);
					queue.schedule("t-" + (wave * perWave + j), Long.toString(due), Instant.ofEpochMilli(due));
				}
				if (wave == WAVES / 2) {
					collect(runs);
					leftWhenRedisKilled = (wave + 1) * perWave - runs.size();
					long redisKilledAt = System.currentTimeMillis();
					redis.kill();
					redis.restart();
					deaths.add(new long[] { redisKilledAt - 1_000, System.currentTimeMillis() });
				}
				int target = wave * perWave + perWave / 4;
				Eventually.holdsWithin(Duration.ofSeconds(60), () -> {
					collect(runs);
					return runs.size() >= target;
				});
				// The oldest consumer dies: started three waves ago, it consumes by now, or is awaited until it does.
				ForkedJvm victim = consumers.remove(0);
				awaitReady(victim, runs);
				long killing = System.currentTimeMillis();
				victim.kill();
				// Until SIGKILL lands the victim may still start a task: its window ends once it is dead.
				long dead = System.currentTimeMillis();
				collect(victim, runs);
				killed.add(victim);
				deaths.add(new long[] { killing - VISIBILITY_MILLIS, dead });
				consumers.add(startConsumer(redis, "consumer-" + (3 + wave)));
			}
			// Whether all ran is asserted below, after the counts are printed.
			Eventually.holdsWithin(Duration.ofSeconds(60), () -> {
				collect(runs);
				return runs.size() >= TASKS;
			});

			Set<String> early = new HashSet<>();
			Map<String, Integer> duplicates = new TreeMap<>();
			Set<String> unexplained = new HashSet<>();
			runs.forEach((id, starts) -> {
				starts.forEach(start -> {
					if (start[0] < start[1]) {
						early.add(id);
					}
				});
				if (starts.size() > 1) {
					duplicates.put(id, starts.size());
					long firstStart = starts.stream().mapToLong(start -> start[0]).min().orElseThrow();
					boolean explained = deaths.stream().anyMatch(death -> firstStart >= death[0] && firstStart <= death[1]);
					if (!explained) {
						unexplained.add(id);
					}
				}
			});
			System.out.println("Chaos: " + TASKS + " tasks in " + WAVES + " waves over " + SECONDS + " s, "
					+ killed.size() + " consumer processes killed, Redis killed once with " + leftWhenRedisKilled
					+ " tasks still to run; ran " + runs.size()
					+ ", early " + early.size() + ", run twice or more " + duplicates.size() + ", unexplained "
					+ unexplained.size());

			assertThat(leftWhenRedisKilled).as("tasks pending when Redis was killed").isPositive();
			assertThat(killed).as("consumer processes killed").hasSize(WAVES);
			assertThat(notRun(runs, redis)).as("tasks that never ran, and where Redis keeps them").isEmpty();
			assertThat(early).as("tasks started before their due time").isEmpty();
			assertThat(unexplained).as("tasks run twice though nothing died while they ran").isEmpty();
		}
	}

	/** The tasks that never ran, each with what Redis keeps of it: its due and in-flight scores, its meta. */
	private static Map<String, String> notRun(Map<String, List<long[]>> runs, RedisNode redis) {
		Map<String, String> missing = new TreeMap<>();
		for (int i = 0; i < TASKS; i++) {
			String id = "t-" + i;
			if (!runs.containsKey(id)) {
				missing.put(id, "due " + redis.call("ZSCORE", "warden:task:{chaos}:due", id) + ", in flight "
						+ redis.call("ZSCORE", "warden:task:{chaos}:inflight", id) + ", meta "
						+ redis.call("HMGET", "warden:task:{chaos}:meta", "a:" + id, "c:" + id, "x:" + id, "d:" + id, "e:" + id)
						+ ", dead " + redis.call("HEXISTS", "warden:task:{chaos}:dead", id));
			}
		}
		return missing;
	}

	private void awaitReady(ForkedJvm consumer, Map<String, List<long[]>> runs) throws InterruptedException {
		Eventually.await("consumer " + consumer.pid() + " consuming (see target/forked-jvm)", Duration.ofSeconds(30),
				() -> {
					collect(consumer, runs);
					return ready.contains(consumer);
				});
	}

	private void collect(Map<String, List<long[]>> runs) {
		for (ForkedJvm consumer : consumers) {
			collect(consumer, runs);
		}
	}

	/** Each run as {start, due}, both epoch milliseconds, as the consumer printed them. */
	private void collect(ForkedJvm consumer, Map<String, List<long[]>> runs) {
		for (String line : consumer.drainLines()) {
			if (line.equals("READY")) {
				ready.add(consumer);
			}
			else if (line.startsWith("RAN ")) {
				String[] fields = line.split(" ");
				runs.computeIfAbsent(fields[1], id -> new ArrayList<>())
					.add(new long[] { Long.parseLong(fields[2]), Long.parseLong(fields[3]) });
			}
		}
	}

	private static ForkedJvm startConsumer(RedisNode redis, String name) {
		return ForkedJvm.start(name, ForkedConsumer.class, redis.host(), Integer.toString(redis.port()), "chaos",
				Long.toString(VISIBILITY_MILLIS));
	}

}
