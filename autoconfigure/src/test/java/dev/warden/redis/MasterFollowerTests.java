package dev.warden.redis;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without Sentinel nobody announces masters, so messages on {@code __sentinel__:hello} come from
 * whoever may {@code PUBLISH} on the Redis: they must not move Warden's connections. (With
 * Sentinel, {@code SentinelTests}.)
 */
class MasterFollowerTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void onAStandaloneRedisSpoofedSentinelAnnouncementsDisconnectNothing() throws Exception {
		try (RedisEngine engine = RedisEngine.connect(clients.redisClient(redis.node()), "warden-spoofed",
				Duration.ofSeconds(5))) {
			engine.ping();

			// A new "master" every 50 ms for 2 s.
			SpoofedHellos.publish(redis.node(), Duration.ofMillis(50), 40,
					i -> SpoofedHellos.naming("mymaster", "127.0.0.1", 7000 + i));

			engine.ping();
			assertThat(engine.disconnects()).as("connections lost to the spoofed announcements").isZero();
			assertThat(engine.connected()).isTrue();
		}
	}

	@Test
	void onlyTheConnectionsOnAnotherNodeThanTheMasterMove() throws Exception {
		InetAddress[] master = { InetAddress.getByName("127.0.0.1") };
		assertThat(MasterFollower.elsewhere(List.of("127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7001"), master, 7001))
			.as("the second is still on the deposed master").containsExactly(1);
		assertThat(MasterFollower.elsewhere(List.of("127.0.0.1:7001", "[::1]:7001"), master, 7001))
			.as("an address of another host").containsExactly(1);
		assertThat(MasterFollower.elsewhere(List.of("127.0.0.1:7001", "127.0.0.1:7001"), master, 7001)).isEmpty();
		assertThat(MasterFollower.elsewhere(Arrays.asList("127.0.0.1:7002", null), master, 7001))
			.as("nothing to compare with on a Redis before 6.2").isEmpty();
	}

}
