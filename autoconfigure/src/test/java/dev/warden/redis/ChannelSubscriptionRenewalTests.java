package dev.warden.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.warden.Eventually;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import dev.warden.redis.PubSubProbes.Recording;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After a reconnect Lettuce renews every channel it knows in one {@code SUBSCRIBE}; Redis confirms
 * each channel of it separately, and Lettuce completes the next {@code SUBSCRIBE} it waits for with
 * each confirmation. A member that joins a channel meanwhile must not be told that its subscription
 * is confirmed before Redis has run it: what is published once it is told must reach it, or its
 * listener must be told to look again.
 */
class ChannelSubscriptionRenewalTests {

	private static final Duration WITHIN = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private TcpProxy proxy;

	private RedisClient client;

	private StatefulRedisPubSubConnection<String, String> connection;

	private ChannelSubscriptions subscriptions;

	@BeforeEach
	void connect() {
		proxy = TcpProxy.start(redis.node());
		// A long timeout: the reconnect's handshake goes through the proxy's latency.
		client = RedisClient.create(
				RedisURI.builder().withHost(proxy.host()).withPort(proxy.port()).withTimeout(WITHIN).build());
		connection = client.connectPubSub();
		subscriptions = new ChannelSubscriptions(connection);
	}

	@AfterEach
	void close() {
		proxy.heal();
		connection.close();
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		proxy.close();
	}


	@Test
	void aMemberToldItIsSubscribedDuringARenewalHearsWhatIsPublishedNext() throws Exception {
		JoinedMeanwhile joined = joinDuringARenewal();
		ChannelSubscriptions.Membership<Recording> member = joined.member();
		boolean told = joined.told();
		// Published once the member is told it is subscribed (Lettuce may still hold its SUBSCRIBE).
		long receivers = told ? (Long) redis.node().call("PUBLISH", "joined-meanwhile", "published once told") : -1;
		proxy.heal();
		member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		if (!told) {
			redis.node().call("PUBLISH", "joined-meanwhile", "published once told");
		}
		boolean heard = Eventually.holdsWithin(Duration.ofSeconds(5),
				() -> !member.listener().messages.isEmpty() || member.listener().resubscriptions.get() > 0);
		assertThat(heard)
			.as("told it is subscribed (while its SUBSCRIBE was held: %s), the member neither hears what was "
					+ "published next (%d receivers in Redis then) nor is told to look again; PUBSUB NUMSUB now: %d",
					told, receivers, subscribers("joined-meanwhile"))
			.isTrue();
		member.close();
	}

	@Test
	void aMemberToldItIsSubscribedDuringARenewalStaysSubscribedAcrossTheNextReconnect() throws Exception {
		JoinedMeanwhile joined = joinDuringARenewal();
		ChannelSubscriptions.Membership<Recording> member = joined.member();
		boolean told = joined.told();
		// The connection drops with the member's SUBSCRIBE unanswered; it comes back.
		proxy.resetAll();
		proxy.heal();
		member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		Eventually.await("the connection came back", WITHIN,
				() -> subscribers("renewed-a") == 1 && subscribers("renewed-b") == 1);
		// A member whose subscription was confirmed hears what is published once things are quiet.
		boolean heard = false;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!heard && System.nanoTime() < deadline) {
			redis.node().call("PUBLISH", "joined-meanwhile", "wake-up");
			heard = member.listener().messages.poll(200, TimeUnit.MILLISECONDS) != null;
		}
		assertThat(heard)
			.as("the member, its subscribed() completed (while its SUBSCRIBE was held: %s), hears the channel "
					+ "(PUBSUB NUMSUB %d, renewals told %d)", told, subscribers("joined-meanwhile"),
					member.listener().resubscriptions.get())
			.isTrue();
		member.close();
	}

	/** A member that joined while a renewal's confirmations were on their way, and whether it was told it is subscribed. */
	private record JoinedMeanwhile(ChannelSubscriptions.Membership<Recording> member, boolean told) {
	}

	/**
	 * Renews two channels through a slow network and joins a third while the renewal's confirmations
	 * are on their way, its SUBSCRIBE held; waits 3 s for it to be told it is subscribed.
	 */
	private JoinedMeanwhile joinDuringARenewal() throws Exception {
		for (String channel : List.of("renewed-a", "renewed-b")) {
			subscriptions.join(channel, Recording::new).subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		// Every chunk takes a second through the proxy, each way.
		proxy.latency(1000);
		redis.node().call("CLIENT", "KILL", "TYPE", "pubsub");
		// Redis ran Lettuce's renewal, SUBSCRIBE renewed-a renewed-b: its two confirmations are on
		// their way back, a second late. What the client sends from now on is held.
		Eventually.await("the renewal ran", WITHIN, () -> subscribers("renewed-a") == 1 && subscribers("renewed-b") == 1);
		proxy.blackhole();
		ChannelSubscriptions.Membership<Recording> member = subscriptions.join("joined-meanwhile", Recording::new);
		try {
			member.subscribed().get(3, TimeUnit.SECONDS);
			return new JoinedMeanwhile(member, true);
		}
		catch (TimeoutException ex) {
			// Not told while its SUBSCRIBE is held.
			return new JoinedMeanwhile(member, false);
		}
	}

	private static long subscribers(String channel) {
		return PubSubProbes.subscribers(redis.node(), channel);
	}

}
