package dev.warden.redis;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisSentinel;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sentinels that announce host names ({@code resolve-hostnames yes}, {@code announce-hostnames yes},
 * as Sentinel charts on Kubernetes set) name the master {@code localhost} while the server gives the
 * connection's address as an IP: Warden compares addresses, not text, so neither the Sentinels' own
 * announcements nor spoofed ones (from anyone allowed to {@code PUBLISH} on the channel) drop its
 * connections.
 */
class MasterFollowerHostnameTests {

	private static RedisSentinel redis;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeAll
	static void startSentinels() {
		redis = RedisSentinel.start();
		RedisNode master = redis.master();
		for (RedisNode sentinel : redis.sentinels()) {
			sentinel.call("SENTINEL", "CONFIG", "SET", "resolve-hostnames", "yes");
			sentinel.call("SENTINEL", "CONFIG", "SET", "announce-hostnames", "yes");
			sentinel.call("SENTINEL", "REMOVE", RedisSentinel.MASTER_NAME);
			sentinel.call("SENTINEL", "MONITOR", RedisSentinel.MASTER_NAME, "localhost",
					Integer.toString(master.port()), "2");
		}
	}

	@AfterAll
	static void stopSentinels() {
		redis.close();
	}

	@Test
	void announcementsDoNotDisconnectWardenWhenTheSentinelsNameTheMasterByHostName() throws Exception {
		List<?> address = (List<?>) redis.sentinels().get(0).call("SENTINEL", "GET-MASTER-ADDR-BY-NAME",
				RedisSentinel.MASTER_NAME);
		assertThat(address.get(0)).as("the Sentinels name the master by host name").hasToString("localhost");
		try (RedisEngine engine = RedisEngine.connect(sentinelClient(), "warden-hostnames", Duration.ofSeconds(5))) {
			engine.ping();

			// 10 announcements, 700 ms apart, each naming another "master"; meanwhile the Sentinels
			// announce the real one (as localhost) every 2 s, and each is confirmed with them.
			SpoofedHellos.publish(redis.master(), Duration.ofMillis(700), 10,
					i -> SpoofedHellos.naming(RedisSentinel.MASTER_NAME, "10.0.0." + (i + 1), 6379));
			Eventually.await("pinged", () -> {
				try {
					engine.ping();
					return true;
				}
				catch (RuntimeException ex) {
					return false;
				}
			});
			assertThat(engine.disconnects()).as("connections dropped without a fail-over").isZero();
		}
	}

	@Test
	void theServerEndOfAConnectionIsOnTheMasterWhenOneOfItsAddressesAndThePortMatch() throws Exception {
		InetAddress[] localhost = { InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1") };
		assertThat(MasterFollower.isOn("127.0.0.1:6379", localhost, 6379)).isTrue();
		assertThat(MasterFollower.isOn("[::1]:6379", localhost, 6379)).isTrue();
		assertThat(MasterFollower.isOn("::1:6379", localhost, 6379)).isTrue();
		assertThat(MasterFollower.isOn("127.0.0.1:6380", localhost, 6379)).isFalse();
		assertThat(MasterFollower.isOn("10.0.0.1:6379", localhost, 6379)).isFalse();
		assertThat(MasterFollower.isOn("garbage", localhost, 6379)).isFalse();
	}

	private RedisClient sentinelClient() {
		RedisNode first = redis.sentinels().get(0);
		RedisURI.Builder uri = RedisURI.Builder.sentinel(first.host(), first.port(), RedisSentinel.MASTER_NAME);
		for (RedisNode sentinel : redis.sentinels().subList(1, redis.sentinels().size())) {
			uri.withSentinel(sentinel.host(), sentinel.port());
		}
		return clients.redisClient(uri);
	}

}
