package dev.warden.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskLimits;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task limits across consumer processes ({@link ForkedTenantConsumer}): two tasks at a time per
 * tenant whatever the number of instances, small tenants served while a big one has a backlog,
 * and the slot of an instance killed while its task ran freed when that task's claim lapses.
 */
class TaskLimitProcessTests {

	private static final Duration WITHIN = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final List<ForkedJvm> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		consumers.forEach(ForkedJvm::close);
		redis.node().call("DEL", "running", "most", "finished");
	}

	private ForkedJvm startConsumer(String name, String queue, long visibilityMillis, int perTenant) {
		ForkedJvm consumer = ForkedJvm.start(name, ForkedTenantConsumer.class, redis.node().host(),
				Integer.toString(redis.node().port()), queue, Long.toString(visibilityMillis), Integer.toString(perTenant),
				"100");
		consumers.add(consumer);
		return consumer;
	}

	@Test
	void threeConsumersRunAtMostTwoTasksPerTenantAndTheSmallTenantsFinishFirst() throws Exception {
		DelayedQueue<String> queue = clients.open(redis.node()).getDelayedQueue("exports", String.class);
		// One tenant with ten times the tasks of each other, all due at once and first in due order.
		for (int i = 0; i < 60; i++) {
			queue.schedule(String.format("a-big-%02d", i), "big:" + i, Duration.ZERO);
		}
		List<String> small = List.of("s1", "s2", "s3", "s4");
		for (String tenant : small) {
			for (int i = 0; i < 6; i++) {
				queue.schedule("b-" + tenant + "-" + i, tenant + ":" + i, Duration.ZERO);
			}
		}
		for (int i = 0; i < 3; i++) {
			startConsumer("tenant-consumer-" + i, "exports", 30_000, 2);
		}
		for (ForkedJvm consumer : consumers) {
			consumer.awaitLine("READY", Duration.ofSeconds(30));
		}
		Eventually.await("all 84 tasks to finish", WITHIN, () -> (Long) redis.node().call("LLEN", "finished") == 84);

		Map<String, String> most = hash("most");
		assertThat(most).containsOnlyKeys("big", "s1", "s2", "s3", "s4");
		assertThat(most.values()).allSatisfy(n -> assertThat(Integer.parseInt(n)).isLessThanOrEqualTo(2));
		assertThat(most.get("big")).isEqualTo("2");
		assertThat(hash("running").values()).containsOnly("0");
		@SuppressWarnings("unchecked")
		List<String> finished = (List<String>) redis.node().call("LRANGE", "finished", "0", "-1");
		int lastSmall = 0;
		for (int i = 0; i < finished.size(); i++) {
			if (small.contains(finished.get(i))) {
				lastSmall = i;
			}
		}
		long bigBefore = finished.subList(0, lastSmall).stream().filter("big"::equals).count();
		System.out.println("Task limits across 3 processes: the 4 small tenants' 24 tasks were done when the big "
				+ "tenant had done " + bigBefore + " of its 60");
		assertThat(bigBefore).isLessThan(30);
		assertThat(queue.stats().deferred()).isZero();
	}

	@Test
	void theSlotOfAKilledInstanceIsFreedWhenItsTaskClaimLapses() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("held", String.class);
		ForkedJvm doomed = startConsumer("tenant-consumer-killed", "held", 1_000, 1);
		doomed.awaitLine("READY", Duration.ofSeconds(30));
		queue.schedule("hold", "t:hold", Duration.ZERO);
		doomed.awaitLine("HOLDING", Duration.ofSeconds(30));

		List<String> ran = new CopyOnWriteArrayList<>();
		queue.consume(delivery -> ran.add(delivery.id() + "#" + delivery.attempt()),
				new ConsumerOptions(3, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1))
					.withLimits(TaskLimits.concurrency(1).perKey(String.class, ForkedTenantConsumer::tenant)));
		queue.schedule("next", "t:1", Duration.ZERO);
		Eventually.await("the task of the same tenant to be deferred", WITHIN, () -> queue.stats().deferred() == 1);
		assertThat(ran).isEmpty();

		doomed.kill();
		Eventually.await("both tasks to run", WITHIN, () -> ran.size() == 2);
		// The killed instance's task ran again first, in the slot its claim held; the deferred one after it.
		assertThat(ran).containsExactly("hold#2", "next#1");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, String> hash(String key) {
		List<String> flat = (List<String>) redis.node().call("HGETALL", key);
		Map<String, String> map = new java.util.TreeMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			map.put(flat.get(i), flat.get(i + 1));
		}
		return map;
	}

}
