package dev.warden;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisClusterExtension;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code CLUSTER FAILOVER} on the replica of the master that holds a lock, its waiter's lock and a
 * queue (three masters, each with a replica): callers see no failure, the held lock stays held and
 * still wakes its waiter when released, and every task runs. With the defaults, the replica check
 * waits on the master of each key, so that a schedule or an acquisition no replica has is not
 * acknowledged: a take-over fail-over loses none that was, and a write a stale view of the cluster
 * sent to the wrong master is not acknowledged either. Each test uses masters of its own.
 */
class ClusterFailoverTests {

	private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void aFailOverUnderAHeldLockAWaiterAndPendingTasksReachesNoCaller() throws Exception {
		String lockName = onMaster(0, "held-");
		String queueName = onMaster(0, "queue-");
		Warden first = clients.open(redis.cluster());
		Warden second = clients.open(redis.cluster());
		LockOwner holder = first.newOwner();
		DistributedReentrantLock held = first.getLock(lockName);
		assertThat(held.tryLock(holder, 0, TimeUnit.SECONDS)).isTrue();
		LockOwner waiter = second.newOwner();
		Future<Boolean> waiting = threads.submit(() -> second.getLock(lockName).tryLock(waiter, 60, TimeUnit.SECONDS));
		DelayedQueue<String> queue = first.getDelayedQueue(queueName, String.class);
		for (int i = 0; i < 20; i++) {
			queue.schedule("t-" + i, "x", Duration.ofMillis(200L * i));
		}
		Set<String> ran = ConcurrentHashMap.newKeySet();
		second.getDelayedQueue(queueName, String.class).consume(delivery -> ran.add(delivery.id()));

		AtomicBoolean failingOver = new AtomicBoolean(true);
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		Future<?> busy = threads.submit(() -> {
			LockOwner owner = first.newOwner();
			DistributedReentrantLock lock = first.getLock(onMaster(0, "busy-"));
			for (int i = 0; failingOver.get() && i < 20_000; i++) {
				try {
					if (lock.tryLock(owner, 2, TimeUnit.SECONDS)) {
						lock.unlock(owner);
					}
				}
				catch (RuntimeException ex) {
					failures.add(ex);
				}
			}
			return null;
		});

		RedisNode replica = redis.cluster().nodes().get(3);
		redis.cluster().failover(replica);
		failingOver.set(false);
		busy.get(30, TimeUnit.SECONDS);

		assertThat(failures).as("failures seen by callers").isEmpty();
		assertThat(held.isHeldBy(holder)).as("the held lock is still held").isTrue();
		held.unlock(holder);
		assertThat(waiting.get(30, TimeUnit.SECONDS)).as("the waiter gets it").isTrue();
		Eventually.await("every task ran", Duration.ofSeconds(30), () -> ran.size() == 20);
	}

	/**
	 * With the defaults, a schedule that returned normally survives a fail-over that does not wait
	 * for the replica ({@code CLUSTER FAILOVER TAKEOVER}, as after a dead master). The replica of the
	 * queue's master is paused and its replication link closed while the task is scheduled, so the
	 * write cannot reach it: the call must not return normally then (it fails with
	 * {@link ReplicaSyncException}: the master had a replica and has none). The master is paused in turn, the
	 * replica resumed and promoted, and the former master resumed: it becomes the new master's
	 * replica and drops what the new master never had. Scheduling again with the same id then
	 * succeeds, on the new master. A lock acquired meanwhile is given back (the attempt fails) the
	 * same way. Master 1 and its replica (node 4) are used only here.
	 */
	@Test
	void withTheDefaultsAScheduleAcknowledgedBeforeATakeoverSurvivesIt() throws Exception {
		RedisNode master = redis.cluster().nodes().get(1);
		RedisNode replica = redis.cluster().nodes().get(4);
		assertThat(info(replica)).contains("role:slave", "master_port:" + master.port());
		Warden warden = clients.open(redis.cluster());
		DelayedQueue<String> queue = warden.getDelayedQueue(onMaster(1, "takeover-"), String.class);
		queue.schedule("before", "x", Duration.ofHours(1));
		DistributedReentrantLock lock = warden.getLock(onMaster(1, "takeover-lock-"));
		LockOwner owner = warden.newOwner();
		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		lock.unlock(owner);

		replica.pause();
		// Closed while the replica is paused, its link takes nothing more: the replication stream of a
		// later write cannot wait in its socket for it to resume.
		master.call("CLIENT", "KILL", "TYPE", "slave");
		Eventually.await("the master without its replica", Duration.ofSeconds(30),
				() -> info(master).contains("connected_slaves:0"));
		Throwable refused = null;
		try {
			queue.schedule("unreplicated", "x", Duration.ofHours(1));
		}
		catch (RuntimeException ex) {
			refused = ex;
		}
		boolean acquired;
		try {
			acquired = lock.tryLock(owner, 0, TimeUnit.SECONDS);
		}
		finally {
			master.pause();
			replica.resume();
		}
		try {
			replica.call("CLUSTER", "FAILOVER", "TAKEOVER");
			Eventually.await("the replica promoted", Duration.ofSeconds(30),
					() -> info(replica).contains("role:master"));
		}
		finally {
			master.resume();
		}
		Eventually.await("the former master a replica of the new one, in sync", Duration.ofSeconds(60),
				() -> info(master).contains("role:slave") && info(master).contains("master_link_status:up"));

		if (refused == null) {
			assertThat(queue.contains("unreplicated"))
				.as("a schedule acknowledged while the replica was paused survives the fail-over")
				.isTrue();
		}
		assertThat(refused).as("the schedule the replica could not have").isInstanceOf(ReplicaSyncException.class);
		assertThat(acquired).as("an acquisition the replica could not have is given back").isFalse();
		assertThat(lock.isLocked()).isFalse();
		assertThat(queue.contains("before")).as("the schedule the replica had").isTrue();
		Eventually.await("scheduling again with the same id succeeds", Duration.ofSeconds(30), () -> {
			try {
				queue.schedule("unreplicated", "x", Duration.ofHours(1));
				return true;
			}
			catch (RedisUnavailableException ex) {
				// Refused by the former master (its replica is the new master), or the topology moving.
				return false;
			}
		});
		assertThat(queue.contains("unreplicated")).isTrue();
	}

	/**
	 * The replica check on a cluster waits on the master of the key's slot, and only there, and a
	 * write that master redirects counts as acknowledged by none. A slot migration leaves a client's
	 * view of the cluster behind (Lettuce reads the topology when it connects): its next schedule
	 * goes to the former owner, which answers {@code MOVED}; the schedule lands on the new owner
	 * through the cluster connection but fails with {@link ReplicaSyncException}, since the
	 * {@code WAIT} on the former owner says nothing of it, and has Warden read the topology again,
	 * so that scheduling again with the same id succeeds, with a {@code WAIT} on the new owner
	 * alone. Master 2 and its replica (node 5) are used only here.
	 */
	@Test
	void theReplicaCheckWaitsOnTheMasterOfTheKeyAndARedirectedWriteIsNotAcknowledged() throws Exception {
		String queueName = onMaster(2, "moved-");
		int slot = SlotHash.getSlot(queueName);
		int source = redis.cluster().ownerOf(slot);
		int target = redis.cluster().ownerOf(0);
		Warden warden = clients.open(redis.cluster());
		DelayedQueue<String> queue = warden.getDelayedQueue(queueName, String.class);
		// The first call of the script loads it (NOSCRIPT, then EVAL): its WAIT is sent again.
		queue.schedule("warm-up", "x", Duration.ofHours(1));

		Map<Integer, Long> before = waitCallsOfMasters();
		queue.schedule("on-the-owner", "x", Duration.ofHours(1));
		assertThat(increased(before, waitCallsOfMasters())).as("the masters sent a WAIT").containsExactly(source);

		redis.cluster().migrateSlot(slot, target, 0);
		assertThatExceptionOfType(ReplicaSyncException.class).as("a schedule the former owner redirected")
			.isThrownBy(() -> queue.schedule("moved", "x", Duration.ofHours(1)));
		Eventually.await("scheduling again with the same id succeeds", Duration.ofSeconds(30), () -> {
			try {
				queue.schedule("moved", "x", Duration.ofHours(1));
				return true;
			}
			catch (ReplicaSyncException ex) {
				return false;
			}
		});
		before = waitCallsOfMasters();
		queue.schedule("on-the-new-owner", "x", Duration.ofHours(1));
		assertThat(increased(before, waitCallsOfMasters())).as("the masters sent a WAIT").containsExactly(target);
		assertThat(queue.contains("moved")).isTrue();
	}

	/** {@code WAIT} calls so far of each master, by index in the cluster's nodes. */
	private static Map<Integer, Long> waitCallsOfMasters() {
		Map<Integer, Long> calls = new TreeMap<>();
		List<RedisNode> nodes = redis.cluster().nodes();
		for (int i = 0; i < nodes.size(); i++) {
			if (info(nodes.get(i)).contains("role:master")) {
				Matcher wait = WAIT_CALLS.matcher(String.valueOf(nodes.get(i).call("INFO", "commandstats")));
				calls.put(i, wait.find() ? Long.parseLong(wait.group(1)) : 0L);
			}
		}
		return calls;
	}

	/** The masters whose count went up. */
	private static List<Integer> increased(Map<Integer, Long> before, Map<Integer, Long> after) {
		return after.keySet().stream().filter(i -> after.get(i) > before.getOrDefault(i, 0L)).toList();
	}

	private static String info(RedisNode node) {
		try {
			return String.valueOf(node.call("INFO", "replication"));
		}
		catch (UncheckedIOException ex) {
			// A node changing role drops its connections meanwhile.
			return "";
		}
	}

	/** A name whose slot is served by master {@code master}. */
	private static String onMaster(int master, String prefix) {
		for (int i = 0; i < 100_000; i++) {
			String name = prefix + i;
			if (SlotHash.getSlot(name) * 3 / SlotHash.SLOT_COUNT == master) {
				return name;
			}
		}
		throw new IllegalStateException("No name on master " + master);
	}


}
