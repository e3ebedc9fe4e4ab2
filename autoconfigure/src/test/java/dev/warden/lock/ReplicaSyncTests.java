package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The fail-over check: an acquisition counts only once a replica has it. */
class ReplicaSyncTests {

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void anAcquisitionNoReplicaAcknowledgesIsGivenBack() throws Exception {
		try (RedisNode primary = RedisNode.start(RedisNode.config().name("primary"));
				RedisNode replica = RedisNode.start(RedisNode.config().name("replica")
					.option("replicaof", primary.host(), Integer.toString(primary.port())))) {
			awaitLinkUp(replica);
			Warden warden = clients.open(primary, options -> options.replicaSync(1, Duration.ofMillis(300)));
			DistributedReentrantLock lock = warden.getLock("replicated");
			LockOwner owner = warden.newOwner();
			assertThat(lock.tryLock(owner, 0, 10, TimeUnit.SECONDS)).isTrue();
			lock.unlock(owner);

			replica.stop();
			assertThat(lock.tryLock(owner, 700, 10_000, TimeUnit.MILLISECONDS)).isFalse();
			assertThat(primary.call("EXISTS", "replicated")).isEqualTo(0L);

			replica.restart();
			awaitLinkUp(replica);
			assertThat(lock.tryLock(owner, 5, 10, TimeUnit.SECONDS)).isTrue();
			assertThat(replica.call("EXISTS", "replicated")).isEqualTo(1L);
		}
	}

	@Test
	void withSeveralConnectionsEachWaitsForTheWritesOfItsOwnLane() throws Exception {
		try (RedisNode primary = RedisNode.start(RedisNode.config().name("primary"));
				RedisNode replica = RedisNode.start(RedisNode.config().name("replica")
					.option("replicaof", primary.host(), Integer.toString(primary.port())))) {
			awaitLinkUp(replica);
			Warden warden = clients.open(primary,
					options -> options.connections(3).replicaSync(1, Duration.ofSeconds(1)));
			LockOwner owner = warden.newOwner();
			for (int i = 0; i < 12; i++) {
				assertThat(warden.getLock("before-" + i).tryLock(owner, 0, 10, TimeUnit.SECONDS)).as("before-" + i).isTrue();
			}

			// Stopped, the replica stays connected, and counts for the writes it had acknowledged: a
			// WAIT on a lane other than the write's would count it for writes it never saw.
			replica.pause();
			try {
				List<CompletableFuture<Boolean>> during = new ArrayList<>();
				for (int i = 0; i < 12; i++) {
					during.add(warden.getLock("during-" + i).tryLockAsync(owner, 0, 10, TimeUnit.SECONDS));
				}
				for (int i = 0; i < 12; i++) {
					assertThat(during.get(i).get(30, TimeUnit.SECONDS)).as("during-" + i).isFalse();
					assertThat(primary.call("EXISTS", "during-" + i)).isEqualTo(0L);
				}
			}
			finally {
				replica.resume();
			}
		}
	}

	private static void awaitLinkUp(RedisNode replica) throws InterruptedException {
		Eventually.await("replication link up",
				() -> ((String) replica.call("INFO", "replication")).contains("master_link_status:up"));
	}

}
