package dev.warden.redis;

import java.time.Duration;
import java.util.List;

import dev.warden.WardenClients;
import dev.warden.redis.ReplicaCount.Reading;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replica count of a client with several command connections: after a fail-over one connection
 * may be on the new master while another is still on the deposed one, and the count is as cautious
 * as the most cautious of theirs.
 */
class ReplicaCountTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void aConnectionStillOnADeposedMasterKeepsWritesWaitingForAReplica() {
		try (RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "replica-count-test",
				Duration.ofSeconds(5), KeyNamespace.WARDEN, 2)) {
			ReplicaCount count = new ReplicaCount(engine);
			Reading before = count.cautious(List.of(new Reading(true, "old", 1, false), new Reading(true, "old", 1, false)));
			assertThat(before.replicas()).isEqualTo(1);
			assertThat(before.lost()).isFalse();

			// The first connection moved to the promoted replica (a new history, no replica yet); the
			// second is still on the old master, whose replica was promoted.
			Reading split = count.cautious(List.of(new Reading(true, "new", 0, false), new Reading(true, "old", 0, false)));
			assertThat(split.lost()).as("one connection is on a master that lost its replicas").isTrue();

			Reading moved = count.cautious(List.of(new Reading(true, "new", 0, false), new Reading(true, "new", 0, false)));
			assertThat(moved.lost()).as("both on the new master, held to nothing").isFalse();
		}
	}

	@Test
	void everyConnectionIsAsked() {
		try (RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "replica-count-test",
				Duration.ofSeconds(5), KeyNamespace.WARDEN, 3)) {
			ReplicaCount count = new ReplicaCount(engine);
			assertThat(engine.await(count.refresh(), "INFO replication")).isZero();
			assertThat(count.expectsReplica()).isFalse();
		}
	}

}
