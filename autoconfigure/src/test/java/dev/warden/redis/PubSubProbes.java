package dev.warden.redis;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.test.redis.RedisNode;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/** What the subscription tests look at: the listener's view, Redis's confirmations and its subscriber counts. */
final class PubSubProbes {

	private PubSubProbes() {
	}

	/** A channel listener that counts the renewals it is told of and keeps the messages it receives. */
	static final class Recording implements ChannelListener {

		final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

		final AtomicInteger resubscriptions = new AtomicInteger();

		@Override
		public void onMessage(String message) {
			messages.add(message);
		}

		@Override
		public void onResubscribed() {
			resubscriptions.incrementAndGet();
		}

	}

	/**
	 * Records Redis's subscription confirmations on the connection, in Redis's order, as
	 * {@code "sub <channel>"} and {@code "unsub <channel>"}. Added after the subscriptions' own
	 * listener, it sees a confirmation once that one has handled it.
	 */
	static Queue<String> confirmations(StatefulRedisPubSubConnection<String, String> connection) {
		Queue<String> confirmations = new ConcurrentLinkedQueue<>();
		connection.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void subscribed(String channel, long count) {
				confirmations.add("sub " + channel);
			}

			@Override
			public void unsubscribed(String channel, long count) {
				confirmations.add("unsub " + channel);
			}
		});
		return confirmations;
	}

	/** {@code PUBSUB NUMSUB} of one channel. */
	static long subscribers(RedisNode node, String channel) {
		return (Long) ((List<?>) node.call("PUBSUB", "NUMSUB", channel)).get(1);
	}

}
