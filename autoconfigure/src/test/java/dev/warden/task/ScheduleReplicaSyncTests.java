package dev.warden.task;

import java.time.Duration;

import dev.warden.ReplicaSyncException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With {@code taskReplicaSync}, a schedule is acknowledged only once a replica has it: with the
 * replica paused, scheduling fails within the timeout instead of acknowledging a task a fail-over
 * would lose; without the check the same schedule is acknowledged unreplicated. The replica is in
 * sync before each check, and the timeout is one that a loaded machine's replica meets.
 */
class ScheduleReplicaSyncTests {

	private static RedisNode master;

	private static RedisNode replica;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeAll
	static void startMasterAndReplica() {
		master = RedisNode.start(RedisNode.config().name("durable-master"));
		replica = RedisNode.start(RedisNode.config()
			.name("durable-replica")
			.option("replicaof", master.host(), Integer.toString(master.port())));
		replica.awaitInSync();
	}

	@AfterAll
	static void stop() {
		replica.close();
		master.close();
	}

	@AfterEach
	void resumeReplica() {
		replica.resume();
	}

	@Test
	void anAcknowledgedScheduleIsOnTheReplica() throws Exception {
		DelayedQueue<String> queue = durable().getDelayedQueue("durable", String.class);

		queue.schedule("t-1", "x", Duration.ofHours(1));

		assertThat(replica.call("HEXISTS", "warden:task:{durable}:tasks", "t-1")).isEqualTo(1L);
	}

	@Test
	void withTheReplicaPausedAScheduleFailsInsteadOfBeingAcknowledged() throws Exception {
		// The paused replica never answers: the wait runs out whatever its length, so a short one.
		DelayedQueue<String> queue = clients.open(master, options -> options.taskReplicaSync(1, Duration.ofMillis(500)))
			.getDelayedQueue("paused", String.class);
		DelayedQueue<String> unchecked = clients.open(master, options -> options.taskReplicaSync(0, Duration.ofSeconds(1)))
			.getDelayedQueue("paused", String.class);
		replica.pause();

		assertThatExceptionOfType(ReplicaSyncException.class)
			.isThrownBy(() -> queue.schedule("t-1", "x", Duration.ofHours(1)))
			.withMessageContaining("not acknowledged by 1 replica(s) within 500 ms");
		assertThat(unchecked.schedule("t-2", "x", Duration.ofHours(1)).status())
			.as("acknowledged without the check, though no replica has it")
			.isEqualTo(ScheduleResult.Status.SCHEDULED);

		replica.resume();
		replica.awaitInSync();
		assertThat(durable().getDelayedQueue("paused", String.class).schedule("t-1", "x", Duration.ofHours(1)).status())
			.as("scheduled again: the same task")
			.isEqualTo(ScheduleResult.Status.ALREADY_PENDING);
	}

	private Warden durable() {
		return clients.open(master, options -> options.taskReplicaSync(1, Duration.ofSeconds(2)));
	}

}
