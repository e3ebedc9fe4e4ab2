package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.Eventually;
import dev.warden.RedisUnavailableException;
import dev.warden.ReplicaSyncException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.redis.ReplicaSync;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleResult;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The replica check by default: a master without replicas is never asked to {@code WAIT}; a master
 * with one has each acquisition and schedule acknowledged by it, and refuses them while the replica
 * is stalled; a master whose replica left refuses them until it is back (as a deposed master would
 * have to); a replica that attaches later starts the waiting.
 */
class AutoReplicaSyncTests {

	private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private RedisNode primary;

	private RedisNode replica;

	@AfterEach
	void stopNodes() {
		if (replica != null) {
			replica.close();
		}
		if (primary != null) {
			primary.close();
		}
	}

	private void startPrimaryAndReplica() throws InterruptedException {
		primary = RedisNode.start(RedisNode.config().name("primary"));
		replica = RedisNode.start(RedisNode.config()
			.name("replica")
			.option("replicaof", primary.host(), Integer.toString(primary.port())));
		awaitLinkUp(replica);
	}

	@Test
	void aMasterWithoutReplicasIsNeverAskedToWait() throws Exception {
		try (RedisNode alone = RedisNode.start(RedisNode.config().name("alone"))) {
			Warden warden = clients.open(alone);
			lockAndSchedule(warden, "a");

			assertThat(waitCalls(alone)).isZero();
		}
	}

	@Test
	void withAReplicaEachWriteWaitsForItAndAStalledReplicaRefusesThem() throws Exception {
		startPrimaryAndReplica();
		Warden warden = clients.open(primary);
		// The first call of each script loads it (NOSCRIPT, then EVAL): its WAIT is sent again.
		lockAndSchedule(warden, "warm-up");
		long before = waitCalls(primary);
		lockAndSchedule(warden, "b");
		assertThat(waitCalls(primary) - before).as("one WAIT for the acquisition, one for the schedule")
			.isEqualTo(2);
		assertThat(replica.call("HLEN", "warden:task:{replicated-b}:tasks")).isEqualTo(1L);

		replica.pause();
		try {
			DistributedReentrantLock lock = warden.getLock("stalled");
			LockOwner owner = warden.newOwner();
			assertThat(lock.tryLock(owner, 0, 10, TimeUnit.SECONDS)).as("unacknowledged: given back").isFalse();
			assertThat(primary.call("EXISTS", "stalled")).isEqualTo(0L);
			DelayedQueue<String> queue = warden.getDelayedQueue("stalled", String.class);
			assertThatExceptionOfType(ReplicaSyncException.class)
				.isThrownBy(() -> queue.schedule("t", "x", Duration.ofHours(1)))
				.withMessageContaining("not acknowledged by 1 replica(s)");
		}
		finally {
			replica.resume();
		}
	}

	@Test
	void aMasterThatLostItsReplicaRefusesWritesUntilOneIsBack() throws Exception {
		startPrimaryAndReplica();
		Warden warden = clients.open(primary);
		lockAndSchedule(warden, "c");
		assertThat(waitCalls(primary)).isPositive();

		// What a master deposed by a fail-over looks like: its replica is gone, and it still takes writes.
		replica.stop();
		Eventually.await("the master sees its replica go",
				() -> ((String) primary.call("INFO", "replication")).contains("connected_slaves:0"));
		DelayedQueue<String> queue = warden.getDelayedQueue("replica-gone", String.class);
		assertThatExceptionOfType(ReplicaSyncException.class)
			.isThrownBy(() -> queue.schedule("t", "x", Duration.ofHours(1)))
			.withMessageContaining("the master had replicas and has none now")
			.withMessageContaining("scheduling again with the same id is safe");
		assertThatExceptionOfType(ReplicaSyncException.class).as("still refused, once known")
			.isThrownBy(() -> queue.schedule("t", "x", Duration.ofHours(1)));
		LockOwner owner = warden.newOwner();
		assertThat(warden.getLock("replica-gone").tryLock(owner, 0, 10, TimeUnit.SECONDS))
			.as("unacknowledged: given back").isFalse();
		assertThat(primary.call("EXISTS", "replica-gone")).isEqualTo(0L);

		replica.restart();
		awaitLinkUp(replica);
		assertThat(queue.schedule("t", "x", Duration.ofHours(1)).status()).as("the same task, acknowledged now")
			.isIn(ScheduleResult.Status.SCHEDULED, ScheduleResult.Status.ALREADY_PENDING);
		assertThat(replica.call("HEXISTS", "warden:task:{replica-gone}:tasks", "t")).isEqualTo(1L);
		lockAndSchedule(warden, "d");
	}

	@Test
	void aReplicaThatAttachesToAMasterThatHadNoneStartsTheWaiting() throws Exception {
		primary = RedisNode.start(RedisNode.config().name("primary"));
		Warden warden = clients.open(primary);
		lockAndSchedule(warden, "e");
		assertThat(waitCalls(primary)).isZero();

		replica = RedisNode.start(RedisNode.config()
			.name("replica")
			.option("replicaof", primary.host(), Integer.toString(primary.port())));
		awaitLinkUp(replica);
		// Seen at the next reading of the master's replicas (every 5 s), at the latest.
		Eventually.await("writes waiting for the replica", Duration.ofSeconds(30), () -> {
			lockAndSchedule(warden, "f-" + System.nanoTime());
			return waitCalls(primary) > 0;
		});
	}

	@Test
	void aWaitAnsweredByAnotherMasterAfterAReconnectAcknowledgesNothing() throws Exception {
		startPrimaryAndReplica();
		try (RedisNode other = RedisNode.start(RedisNode.config().name("other"));
				RedisNode otherReplica = RedisNode.start(RedisNode.config()
					.name("other-replica")
					.option("replicaof", other.host(), Integer.toString(other.port())));
				TcpProxy proxy = TcpProxy.start(primary)) {
			awaitLinkUp(otherReplica);
			// Timeouts no machine reaches: the WAIT is still blocked when its connection is reset.
			Warden warden = clients.open(clients.redisClient(proxy.host(), proxy.port()),
					options -> options.commandTimeout(Duration.ofSeconds(60))
						.taskReplicaSync(ReplicaSync.AUTO, Duration.ofSeconds(30)));
			DelayedQueue<String> queue = warden.getDelayedQueue("moved", String.class);
			queue.schedule("warm-up", "x", Duration.ofHours(1));

			replica.pause();
			CompletableFuture<ScheduleResult> scheduling;
			try {
				scheduling = CompletableFuture.supplyAsync(() -> queue.schedule("t", "x", Duration.ofHours(1)));
				Eventually.await("the schedule's WAIT blocked", () -> ((String) primary.call("INFO", "clients"))
					.contains("blocked_clients:1"));
				// A fail-over behind a fixed address: the old master closes the connections, Lettuce
				// reconnects to the other master and sends the unanswered WAIT there, where a replica in
				// sync answers it at once.
				proxy.target(other);
				primary.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
				// Not acknowledged: ReplicaSyncException (or, had Lettuce failed the WAIT instead of
				// sending it again, the lost connection's RedisUnavailableException).
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> scheduling.get(60, TimeUnit.SECONDS))
					.withCauseInstanceOf(RedisUnavailableException.class);
			}
			finally {
				replica.resume();
			}
			assertThat(other.call("HEXISTS", "warden:task:{moved}:tasks", "t")).as("not on the other master")
				.isEqualTo(0L);
			assertThat(queue.schedule("t", "x", Duration.ofHours(1)).status()).as("scheduled again, there")
				.isEqualTo(ScheduleResult.Status.SCHEDULED);
		}
	}

	@Test
	void acquisitionsInFlightTogetherShareTheirWait() throws Exception {
		startPrimaryAndReplica();
		// A timeout no machine reaches, so that the first WAIT returns when the replica is back; one
		// command connection, which that WAIT blocks (with several, each has its own WAIT).
		Warden warden = clients.open(primary,
				options -> options.connections(1).replicaSync(ReplicaSync.AUTO, Duration.ofSeconds(60)));
		LockOwner owner = warden.newOwner();
		lockAndSchedule(warden, "warm-up");
		long before = waitCalls(primary);

		replica.pause();
		CompletableFuture<Boolean> first = warden.getLock("shared-wait-first").tryLockAsync(owner, 0, 60, TimeUnit.SECONDS);
		List<CompletableFuture<Boolean>> behind = new ArrayList<>();
		try {
			Eventually.await("the first WAIT blocked", () -> ((String) primary.call("INFO", "clients"))
				.contains("blocked_clients:1"));
			// Sent while that WAIT blocks the connection: each needs a WAIT sent after it, one for all.
			for (int i = 0; i < 50; i++) {
				behind.add(warden.getLock("shared-wait-" + i).tryLockAsync(owner, 0, 60, TimeUnit.SECONDS));
			}
		}
		finally {
			replica.resume();
		}

		assertThat(first.get(60, TimeUnit.SECONDS)).isTrue();
		for (CompletableFuture<Boolean> acquisition : behind) {
			assertThat(acquisition.get(60, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(waitCalls(primary) - before).as("the first acquisition's WAIT, and one for the fifty behind it")
			.isEqualTo(2);
		for (int i = 0; i < 50; i++) {
			assertThat(replica.call("EXISTS", "shared-wait-" + i)).isEqualTo(1L);
		}
	}

	private static void lockAndSchedule(Warden warden, String name) {
		DistributedReentrantLock lock = warden.getLock("replicated-" + name);
		LockOwner owner = warden.newOwner();
		try {
			assertThat(lock.tryLock(owner, 5, 10, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		lock.unlock(owner);
		warden.getDelayedQueue("replicated-" + name, String.class).schedule("t", "x", Duration.ofHours(1));
	}

	private static long waitCalls(RedisNode node) {
		Matcher calls = WAIT_CALLS.matcher((String) node.call("INFO", "commandstats"));
		return calls.find() ? Long.parseLong(calls.group(1)) : 0;
	}

	private static void awaitLinkUp(RedisNode replica) throws InterruptedException {
		Eventually.await("replication link up",
				() -> ((String) replica.call("INFO", "replication")).contains("master_link_status:up"));
	}

}
