package dev.warden.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import dev.warden.redis.PubSubProbes.Recording;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A channel's listener is told of a renewed subscription after a reconnect, and only then: the
 * subscription's own confirmation is not one, so a consumer or a waiter that has just joined does
 * not look again for nothing.
 */
class ChannelSubscriptionsTests {

	private static final Duration WITHIN = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private StatefulRedisPubSubConnection<String, String> connection;

	private ChannelSubscriptions subscriptions;

	@BeforeEach
	void connect() {
		connection = clients.redisClient(redis.node()).connectPubSub();
		subscriptions = new ChannelSubscriptions(connection);
	}

	@AfterEach
	void close() {
		connection.close();
	}


	@Test
	void aSubscriptionsOwnConfirmationIsNoResubscription() throws Exception {
		// Many fresh channels: the confirmation races the subscription's reply on each.
		for (int i = 0; i < 40; i++) {
			String channel = "own-confirmation-" + i;
			Recording listener = new Recording();
			try (ChannelSubscriptions.Membership<Recording> member = subscriptions.join(channel, () -> listener)) {
				member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
				redis.node().call("PUBLISH", channel, "after");
				// Redis confirmed the subscription before it sent the message: both were handled by now.
				assertThat(listener.messages.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("after");
				assertThat(listener.resubscriptions).as("renewals told on channel %s", channel).hasValue(0);
			}
		}
	}

	@Test
	void aSubscriptionRenewedAfterAReconnectIsAResubscription() throws Exception {
		Recording listener = new Recording();
		try (ChannelSubscriptions.Membership<Recording> member = subscriptions.join("renewed", () -> listener)) {
			member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
			redis.node().call("CLIENT", "KILL", "TYPE", "pubsub");
			Eventually.await("the renewal told", WITHIN, () -> listener.resubscriptions.get() == 1);
			// Renewed once Redis confirmed it again: a message published now arrives.
			redis.node().call("PUBLISH", "renewed", "again");
			assertThat(listener.messages.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("again");
			assertThat(listener.resubscriptions).hasValue(1);
		}
	}

	@Test
	void aChannelLeftAndJoinedAgainSubscribesAgain() throws Exception {
		Recording first = new Recording();
		try (ChannelSubscriptions.Membership<Recording> member = subscriptions.join("again", () -> first)) {
			member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		Recording second = new Recording();
		try (ChannelSubscriptions.Membership<Recording> member = subscriptions.join("again", () -> second)) {
			member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
			redis.node().call("PUBLISH", "again", "to the second");
			assertThat(second.messages.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("to the second");
		}
		assertThat(first.messages).isEmpty();
		assertThat(subscriptions.subscribedChannels()).isZero();
	}

}
