package dev.warden.badinput;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenApplications;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.warden.badinput.BadInputCatalogue.expect;
import static dev.warden.badinput.BadInputCatalogue.expectStartupFailure;

/**
 * The rows of configuration and connection: a bad {@code warden.*} value, an unknown
 * {@code warden.*} property, credentials Redis refuses and a Redis that is not there fail startup,
 * naming the property or the address; a user Redis does not let run scripts fails the first call.
 */
class ConfigurationBadInputTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node());

	private void startupFails(String id, String... properties) {
		expectStartupFailure(id, redis.node(), runner.withPropertyValues(properties));
	}

	@Test
	void aNegativeCommandTimeout() {
		startupFails("S01", "warden.command-timeout=-1s");
	}

	@Test
	void aCommandTimeoutThatIsNotADuration() {
		startupFails("S02", "warden.command-timeout=soon");
	}

	@Test
	void anUnknownProperty() {
		startupFails("S03", "warden.lock.wachdog-timeout=5s");
	}

	@Test
	void aWatchdogTimeoutTooShortToRenew() {
		startupFails("S04", "warden.lock.watchdog-timeout=1ms");
	}

	@Test
	void aNegativeMisfireThreshold() {
		startupFails("S14", "warden.recurring.misfire-threshold=-1s");
	}

	@Test
	void aDeadLetterRetentionOfZero() {
		startupFails("S15", "warden.delayed-task.dead-letter-retention=0s");
	}

	@Test
	void aDashboardPropertyOfAnEarlierVersion() {
		startupFails("S16", "warden.dashboard.enabled=true");
	}

	@Test
	void aNegativeQueueRefreshInterval() {
		startupFails("S17", "warden.metrics.queue-refresh-interval=-1s");
	}

	@Test
	void aHealthCheckIntervalOfZero() {
		startupFails("S18", "warden.health.check-interval=0s");
	}

	@Test
	void aMemoryThresholdAboveOne() {
		startupFails("S19", "warden.health.memory-threshold=1.5");
	}

	@Test
	void anEvictingRedisWhenToldToFail() {
		redis.node().call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		try {
			startupFails("S20", "warden.eviction-policy-check=fail");
		}
		finally {
			redis.node().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		}
	}

	@Test
	void aNamespaceWithASpace() {
		startupFails("S21", "warden.namespace=my app");
	}

	@Test
	void noAttempts() {
		startupFails("S05", "warden.delayed-task.max-attempts=0");
	}

	@Test
	void aQueueBackoffOfZero() {
		startupFails("S06", "warden.delayed-task.queues.close.backoff=0s");
	}

	@Test
	void aPayloadLimitAboveRedisOwn() {
		startupFails("S07", "warden.delayed-task.max-payload-size=1GB");
	}

	@Test
	void aClaimAheadWindowTooWide() {
		startupFails("S08", "warden.delayed-task.claim-ahead=5s");
	}

	@Test
	void aClientIdWithAColon() {
		startupFails("S09", "warden.client-id=a:b");
	}

	@Test
	void aRedLockNodeWithoutAHost() {
		startupFails("S10", "warden.redlock.nodes=redis://,redis://127.0.0.1:1,redis://127.0.0.1:2");
	}

	@Test
	void credentialsRedisRefuses() {
		redis.node().call("ACL", "SETUSER", "orders", "on", ">right", "~*", "&*", "+@all");

		startupFails("S11", "spring.data.redis.username=orders", "spring.data.redis.password=wrong");
	}

	@Test
	void aPortWhereNoRedisListens() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}

		startupFails("S12", "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort);
	}

	@Test
	void aUserWithoutScriptRights() {
		redis.node().call("ACL", "SETUSER", "reader", "on", ">secret", "~*", "&*", "+@all", "-evalsha", "-eval");
		Warden warden = clients.open(clients.redisClient(redis.node(), "reader", "secret"));

		expect("S13", redis.node(), () -> warden.getLock("acl-lock").tryLock(warden.newOwner(), 0, TimeUnit.SECONDS));
	}

}
