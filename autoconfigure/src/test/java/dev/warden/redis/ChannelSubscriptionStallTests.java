package dev.warden.redis;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The network between the pub/sub connection and Redis goes silent for longer than Lettuce's
 * command timeout (the URI's, 5 s here): a {@code SUBSCRIBE} already on the wire fails its members,
 * who leave, and Redis runs it when the network heals. Once quiet, a channel without members must
 * not stay subscribed in Redis.
 */
class ChannelSubscriptionStallTests {

	private static final Duration WITHIN = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** Redis's confirmations, in its order. */
	private Queue<String> confirmations;

	private TcpProxy proxy;

	private StatefulRedisPubSubConnection<String, String> connection;

	private ChannelSubscriptions subscriptions;

	@BeforeEach
	void connect() {
		proxy = TcpProxy.start(redis.node());
		connection = clients.redisClient(proxy.host(), proxy.port()).connectPubSub();
		subscriptions = new ChannelSubscriptions(connection);
		confirmations = PubSubProbes.confirmations(connection);
	}

	@AfterEach
	void close() {
		proxy.heal();
		connection.close();
		proxy.close();
	}

	@Test
	void aSubscribeThatTimedOutInAStallAndRanAfterItLeavesNoSubscription() throws Exception {
		proxy.blackhole();
		ChannelSubscriptions.Membership<ChannelListener> member = subscriptions.join("stalled", () -> message -> {
		});
		// Lettuce gives up on the SUBSCRIBE after its timeout: the member is told, and leaves.
		assertThatThrownBy(() -> member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
			.isInstanceOf(ExecutionException.class);
		member.close();
		assertThat(subscriptions.subscribedChannels()).isZero();
		proxy.heal();
		// The SUBSCRIBE was on the wire: Redis runs it once the network heals.
		Eventually.await("Redis confirmed the held SUBSCRIBE", WITHIN, () -> confirmations.contains("sub stalled"));
		assertSettlesUnsubscribed("stalled");
	}

	@Test
	void aChannelLeftLatelyIsStillKnownAfterOthersFirstLeftSinceItsFirstLeave() throws Exception {
		// "hot" is first left early in the connection's life; then 1,000 other channels are used
		// once each (a lock per order, say), well within the 1,024 names remembered.
		try (ChannelSubscriptions.Membership<ChannelListener> early = subscriptions.join("hot", () -> message -> {
		})) {
			early.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		for (int i = 0; i < 1000; i++) {
			subscriptions.join("once-" + i, () -> message -> {
			}).close();
		}
		ChannelSubscriptions.Membership<ChannelListener> member = subscriptions.join("hot", () -> message -> {
		});
		member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		proxy.blackhole();
		// "hot" is left now: its UNSUBSCRIBE is held, and the SUBSCRIBE of the next member behind it.
		member.close();
		ChannelSubscriptions.Membership<ChannelListener> late = subscriptions.join("hot", () -> message -> {
		});
		assertThatThrownBy(() -> late.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
			.isInstanceOf(ExecutionException.class);
		late.close();
		// 30 more channels first left after "hot" was: it left lately, 31 names ago.
		for (int i = 0; i < 30; i++) {
			subscriptions.join("later-" + i, () -> message -> {
			}).close();
		}
		assertThat(subscriptions.subscribedChannels()).isZero();
		proxy.heal();
		// Redis runs UNSUBSCRIBE, then the late member's SUBSCRIBE: a confirmation without members of
		// a channel that left lately, to be undone.
		Eventually.await("Redis confirmed the late SUBSCRIBE", WITHIN,
				() -> confirmations.stream().filter("sub hot"::equals).count() == 3);
		assertSettlesUnsubscribed("hot");
	}

	/**
	 * Once a later round trip is done (anything sent to put a channel right went out before it), the
	 * channel has no subscriber in Redis within a few seconds.
	 */
	private void assertSettlesUnsubscribed(String channel) throws Exception {
		try (ChannelSubscriptions.Membership<ChannelListener> control = subscriptions.join("control-" + channel,
				() -> message -> {
				})) {
			control.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		boolean unsubscribed = Eventually.holdsWithin(Duration.ofSeconds(5), () -> subscribers(channel) == 0);
		List<String> confirmed = confirmations.stream().filter(each -> each.endsWith(" " + channel)).toList();
		assertThat(unsubscribed)
			.as("%s has no member (%d channels with members), yet PUBSUB NUMSUB is %d; its confirmations in "
					+ "Redis's order: %s", channel, subscriptions.subscribedChannels(), subscribers(channel), confirmed)
			.isTrue();
	}

	private static long subscribers(String channel) {
		return PubSubProbes.subscribers(redis.node(), channel);
	}

}
