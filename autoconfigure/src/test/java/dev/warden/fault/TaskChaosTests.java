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
 * Tasks due over a few seconds, three consumer processes, one of them killed ({@code SIGKILL}) and
 * started again each time another eighth of the tasks has run, and Redis itself killed and restarted once (AOF, fsync on
 * every write): every task runs, none before its due time, and a task runs twice only when the
 * process running it was killed, or Redis was killed while its completion was on the way. The
 * counts are printed. {@code -Pchaos-soak} runs 20,000 tasks over 20 s.
 */
class TaskChaosTests {

	private static final int TASKS = Integer.getInteger("warden.chaos.tasks", 2_000);

	private static final int SECONDS = Integer.getInteger("warden.chaos.seconds", 5);

	private static final long VISIBILITY_MILLIS = 2_000;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final List<ForkedJvm> consumers = new ArrayList<>();

	private final List<ForkedJvm> killed = new ArrayList<>();

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
			long first = System.currentTimeMillis() + 1_000;
			for (int i = 0; i < TASKS; i++) {
				long due = first + (long) i * SECONDS * 1_000 / TASKS;
				queue.schedule("t-" + i, Long.toString(due), Instant.ofEpochMilli(due));
			}

			Map<String, List<Long>> runs = new HashMap<>();
			List<long[]> deaths = new ArrayList<>();
			long end = first + SECONDS * 1_000L;
			boolean redisKilled = false;
			int round = 0;
			while (System.currentTimeMillis() < end && round < 10_000) {
				// The next kill once an eighth of the tasks more have run (or the last is due).
				int target = runs.size() + Math.max(1, TASKS / 8);
				Eventually.holdsWithin(Duration.ofSeconds(30), () -> {
					collect(runs);
					return runs.size() >= target || System.currentTimeMillis() >= end;
				});
				ForkedJvm victim = consumers.remove(round % consumers.size());
				long killedAt = System.currentTimeMillis();
				victim.kill();
				collect(victim, runs);
				killed.add(victim);
				deaths.add(new long[] { killedAt - VISIBILITY_MILLIS, killedAt });
				consumers.add(startConsumer(redis, "consumer-" + (3 + round)));
				if (!redisKilled && System.currentTimeMillis() > first + SECONDS * 500L) {
					long redisKilledAt = System.currentTimeMillis();
					redis.kill();
					redis.restart();
					deaths.add(new long[] { redisKilledAt - 1_000, System.currentTimeMillis() });
					redisKilled = true;
				}
				round++;
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
					if (start < dueOf(id, first)) {
						early.add(id);
					}
				});
				if (starts.size() > 1) {
					duplicates.put(id, starts.size());
					long firstStart = starts.stream().min(Long::compare).orElseThrow();
					boolean explained = deaths.stream().anyMatch(death -> firstStart >= death[0] && firstStart <= death[1]);
					if (!explained) {
						unexplained.add(id);
					}
				}
			});
			System.out.println("Chaos: " + TASKS + " tasks over " + SECONDS + " s, " + killed.size()
					+ " consumer processes killed, Redis killed once (" + redisKilled + "); ran " + runs.size()
					+ ", early " + early.size() + ", run twice or more " + duplicates.size() + ", unexplained "
					+ unexplained.size());

			assertThat(redisKilled).isTrue();
			assertThat(runs).as("every task ran").hasSize(TASKS);
			assertThat(early).as("tasks started before their due time").isEmpty();
			assertThat(unexplained).as("tasks run twice though nothing died while they ran").isEmpty();
		}
	}

	private long dueOf(String id, long first) {
		int i = Integer.parseInt(id.substring(2));
		return first + (long) i * SECONDS * 1_000 / TASKS;
	}

	private void collect(Map<String, List<Long>> runs) {
		for (ForkedJvm consumer : consumers) {
			collect(consumer, runs);
		}
	}

	private static void collect(ForkedJvm consumer, Map<String, List<Long>> runs) {
		for (String line : consumer.drainLines()) {
			if (line.startsWith("RAN ")) {
				String[] fields = line.split(" ");
				runs.computeIfAbsent(fields[1], id -> new ArrayList<>()).add(Long.parseLong(fields[2]));
			}
		}
	}

	private static ForkedJvm startConsumer(RedisNode redis, String name) throws InterruptedException {
		ForkedJvm consumer = ForkedJvm.start(name, ForkedConsumer.class, redis.host(), Integer.toString(redis.port()),
				"chaos", Long.toString(VISIBILITY_MILLIS));
		consumer.awaitLine("READY", Duration.ofSeconds(30));
		return consumer;
	}

}
