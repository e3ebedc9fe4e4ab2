package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisClusterExtension;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A live slot migration on a three-master cluster while its locks are held and contended and its
 * queue takes and runs tasks: while the slot is split, Redis answers {@code TRYAGAIN} to scripts
 * whose keys are on both sides, and Warden sends them again, so no caller sees a failure, the held
 * lock stays held, and every task runs.
 */
class ClusterReshardingTests {

	private static final int WORKERS = 3;

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void aSlotMigratedWhileInUseReachesNoCallerAndLosesNoTask() throws Exception {
		List<String> names = inOneSlot("reshard-", WORKERS + 2);
		int slot = SlotHash.getSlot(names.get(0));
		Warden first = clients.open(redis.cluster());
		Warden second = clients.open(redis.cluster());
		String queueName = names.get(WORKERS + 1);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		second.getDelayedQueue(queueName, String.class).consume(delivery -> ran.add(delivery.id()));
		DelayedQueue<String> queue = first.getDelayedQueue(queueName, String.class);

		LockOwner holder = first.newOwner();
		DistributedReentrantLock held = first.getLock(names.get(0));
		assertThat(held.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
		// Keys in the slot on both sides of the migration: a fencing counter, pending tasks.
		assertThat(first.getLock(names.get(1)).tryLockWithToken(holder, 0, TimeUnit.SECONDS)).isPresent();
		first.getLock(names.get(1)).unlock(holder);
		for (int i = 0; i < 20; i++) {
			queue.schedule("early-" + i, "x", Duration.ofMillis(100L * i));
		}

		AtomicBoolean migrating = new AtomicBoolean(true);
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		Set<String> scheduled = ConcurrentHashMap.newKeySet();
		List<Future<Integer>> workers = new ArrayList<>();
		for (int w = 0; w < WORKERS; w++) {
			Warden warden = (w % 2 == 0) ? first : second;
			DistributedReentrantLock lock = warden.getLock(names.get(1 + w));
			String prefix = "w" + w + "-";
			workers.add(threads.submit(() -> {
				LockOwner owner = warden.newOwner();
				int rounds = 0;
				while (migrating.get() && rounds < 20_000) {
					try {
						if (lock.tryLockWithToken(owner, 2, TimeUnit.SECONDS).isPresent()) {
							lock.unlock(owner);
						}
						String id = prefix + rounds;
						warden.getDelayedQueue(queueName, String.class).schedule(id, "x", Duration.ofMillis(20));
						scheduled.add(id);
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
					rounds++;
				}
				return rounds;
			}));
		}
		Eventually.await("the workers under way", () -> scheduled.size() >= WORKERS);

		int target = (redis.cluster().ownerOf(slot) + 1) % 3;
		int moved = redis.cluster().migrateSlot(slot, target, 30);
		migrating.set(false);
		int rounds = 0;
		for (Future<Integer> worker : workers) {
			rounds += worker.get(30, TimeUnit.SECONDS);
		}

		assertThat(redis.cluster().ownerOf(slot)).isEqualTo(target);
		assertThat(moved).as("keys moved one by one").isGreaterThanOrEqualTo(3);
		assertThat(failures).as("failures seen by callers in " + rounds + " rounds").isEmpty();
		assertThat(held.isHeldBy(holder)).as("the held lock is still held").isTrue();
		Eventually.await("every task ran", Duration.ofSeconds(20),
				() -> ran.size() == 20 + scheduled.size());
		held.unlock(holder);
	}

	/** {@code count} names with the same hash slot. */
	private static List<String> inOneSlot(String prefix, int count) {
		List<String> names = new ArrayList<>(List.of(prefix + 0));
		int slot = SlotHash.getSlot(names.get(0));
		for (int i = 1; i < 10_000_000 && names.size() < count; i++) {
			if (SlotHash.getSlot(prefix + i) == slot) {
				names.add(prefix + i);
			}
		}
		assertThat(names).hasSize(count);
		return names;
	}


}
