package dev.warden.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.RedisOutOfMemoryException;
import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.WardenClients;
import dev.warden.WardenConfigurationException;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Warden on a Redis that evicts keys under memory pressure, as a cache's Redis does: it says so at
 * startup and after a reconnect, refuses to start when told to, and a write Redis refuses for want
 * of memory is a typed exception that stored nothing.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionPolicyTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@AfterEach
	void restoreTheServer() {
		if (redis.node().isRunning()) {
			redis.node().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			redis.node().call("CONFIG", "SET", "maxmemory", "0");
		}
	}

	@Test
	void anAllKeysPolicyIsNamedWithWhatItBreaks(CapturedOutput output) {
		redis.node().call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		clients.open(redis.node());
		assertThat(output).contains("maxmemory-policy allkeys-lru: any key may go, locks and tasks among them")
			.contains("Set maxmemory-policy to noeviction");
	}

	@Test
	void aVolatilePolicyIsNamedToo(CapturedOutput output) {
		redis.node().call("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
		clients.open(redis.node());
		assertThat(output).contains("maxmemory-policy volatile-ttl: keys with an expiry go first");
	}

	@Test
	void noEvictionSaysNothing(CapturedOutput output) {
		clients.open(redis.node());
		assertThat(output).doesNotContain("maxmemory-policy");
	}

	@Test
	void aPolicyMetAfterAReconnectIsNamed(CapturedOutput output) throws Exception {
		Warden warden = clients.open(redis.node());
		assertThat(output).doesNotContain("maxmemory-policy");
		redis.node().call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");

		// The connections dropped, as in a fail-over: the client reconnects and looks again.
		redis.node().call("CLIENT", "KILL", "TYPE", "normal");
		redis.node().call("CLIENT", "KILL", "TYPE", "pubsub");

		Eventually.await("the warning", Duration.ofSeconds(30), () -> output.toString().contains("allkeys-lfu"));
		assertThat(warden.ping()).isNotNegative();
	}

	@Test
	void failRefusesToStartNamingThePolicy() {
		redis.node().call("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
		WardenApplications.runner(redis.node()).withPropertyValues("warden.eviction-policy-check=fail").run(context -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().isInstanceOf(WardenConfigurationException.class)
				.hasMessageContaining("maxmemory-policy allkeys-random");
		});
	}

	@Test
	void aRedisThatRefusesConfigIsSaidToBeUnchecked(CapturedOutput output) {
		try (RedisNode managed = RedisNode.start(RedisNode.config().name("no-config").option("rename-command", "CONFIG",
				"\"\""))) {
			clients.open(managed);
			assertThat(output).contains("Could not read Redis's maxmemory-policy");
		}
	}

	@Test
	void aWriteRefusedForWantOfMemoryIsTypedAndStoresNothing() throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue("oom", String.class);
		redis.node().call("CONFIG", "SET", "maxmemory", "1");

		assertThatThrownBy(() -> queue.schedule("t-1", "x", Duration.ofMinutes(5)))
			.isInstanceOf(RedisOutOfMemoryException.class)
			.hasMessageContaining("out of memory")
			.hasMessageContaining("nothing was written");
		assertThatThrownBy(() -> warden.getLock("oom-lock").tryLock(warden.newOwner(), 0, TimeUnit.SECONDS))
			.isInstanceOf(RedisOutOfMemoryException.class);

		redis.node().call("CONFIG", "SET", "maxmemory", "0");
		assertThat(queue.contains("t-1")).as("nothing stored").isFalse();
		assertThat(redis.node().call("EXISTS", "oom-lock")).isEqualTo(0L);
	}

}
