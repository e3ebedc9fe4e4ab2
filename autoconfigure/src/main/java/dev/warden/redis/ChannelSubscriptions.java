package dev.warden.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * Reference-counted channel subscriptions over one client's single pub/sub connection.
 * <p>
 * The first member of a channel sends {@code SUBSCRIBE}, the last one to leave sends
 * {@code UNSUBSCRIBE}; in between, all members share one {@link ChannelListener}. {@code UNSUBSCRIBE}
 * is sent while the channel's map entry is being removed, {@code SUBSCRIBE} once the new entry is
 * in the map and before its first member gets its membership (no other member can leave it empty
 * before that), so for any one channel they reach Redis in the order the members joined and left,
 * and the subscription's own confirmation always finds the channel in the map: any later one
 * follows a reconnect.
 */
public final class ChannelSubscriptions {

	private final StatefulRedisPubSubConnection<String, String> connection;

	private final ConcurrentMap<String, Channel<?>> channels = new ConcurrentHashMap<>();

	ChannelSubscriptions(StatefulRedisPubSubConnection<String, String> connection) {
		this.connection = connection;
		connection.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				Channel<?> subscribed = channels.get(channel);
				if (subscribed != null) {
					subscribed.listener.onMessage(message);
				}
			}

			@Override
			public void subscribed(String channel, long count) {
				Channel<?> subscribed = channels.get(channel);
				// The first confirmation is the subscription's own; any later one follows a reconnect.
				// (A confirmation of an earlier subscription of the name, left before Redis confirmed
				// it, may come first: at worst a listener looks again once for nothing.)
				if (subscribed != null && subscribed.confirmations.getAndIncrement() > 0) {
					subscribed.listener.onResubscribed();
				}
			}
		});
	}

	/**
	 * Joins a channel, subscribing to it if this is its first member.
	 * @param channel the channel name
	 * @param listenerFactory creates the channel's listener when the channel has no member yet;
	 * every member of one channel must ask for the same kind of listener
	 * @param <L> the listener type
	 * @return the membership, to be closed when the member leaves
	 */
	@SuppressWarnings("unchecked")
	public <L extends ChannelListener> Membership<L> join(String channel, Supplier<L> listenerFactory) {
		List<Channel<?>> created = new ArrayList<>(1);
		Channel<?> joined = channels.compute(channel, (name, existing) -> {
			if (existing != null) {
				existing.members++;
				return existing;
			}
			created.add(new Channel<>(listenerFactory.get(), new CompletableFuture<>()));
			return created.get(0);
		});
		if (!created.isEmpty()) {
			try {
				connection.async().subscribe(channel).whenComplete((ignored, failure) -> {
					if (failure != null) {
						joined.subscribed.completeExceptionally(failure);
					}
					else {
						joined.subscribed.complete(null);
					}
				});
			}
			catch (RuntimeException ex) {
				// Lettuce refuses commands at once when the connection is closed.
				joined.subscribed.completeExceptionally(ex);
				channels.remove(channel, joined);
				throw RedisEngine.translate(ex, "subscription to " + channel);
			}
		}
		return new Membership<>(channel, (Channel<L>) joined);
	}

	/**
	 * A mark of the channel's subscription as it is now, when Redis has confirmed it: a member that
	 * joins later under the same mark ({@link Membership#continues}) knows that the channel's listener
	 * has heard every message published since the mark was taken (a message lost to a reconnect is
	 * made up for by {@link ChannelListener#onResubscribed()}).
	 * @param channel the channel name
	 * @return the mark, or {@code null} when the channel has no confirmed subscription
	 */
	public @Nullable Object confirmedSubscription(String channel) {
		Channel<?> subscribed = channels.get(channel);
		return (subscribed != null && subscribed.subscribed.isDone() && !subscribed.subscribed.isCompletedExceptionally())
				? subscribed : null;
	}

	/**
	 * The listener of a channel this client is subscribed to, without joining it.
	 * @param channel the channel name
	 * @param type the listener type expected
	 * @param <L> the listener type
	 * @return the channel's listener, or {@code null} when it has no member or another kind of listener
	 */
	public <L extends ChannelListener> @Nullable L listener(String channel, Class<L> type) {
		Channel<?> subscribed = channels.get(channel);
		return (subscribed != null && type.isInstance(subscribed.listener)) ? type.cast(subscribed.listener) : null;
	}

	/** How many channels this client is subscribed to on behalf of its members. */
	public int subscribedChannels() {
		return channels.size();
	}

	private void leave(String channel, Channel<?> member) {
		channels.computeIfPresent(channel, (name, existing) -> {
			if (existing != member) {
				return existing;
			}
			if (--existing.members > 0) {
				return existing;
			}
			connection.async().unsubscribe(name);
			return null;
		});
	}

	private static final class Channel<L extends ChannelListener> {

		final L listener;

		final CompletableFuture<Void> subscribed;

		/** How often Redis confirmed the subscription: more than once after a reconnect. */
		final java.util.concurrent.atomic.AtomicInteger confirmations = new java.util.concurrent.atomic.AtomicInteger();

		// Guarded by the map's per-key compute.
		int members = 1;

		Channel(L listener, CompletableFuture<Void> subscribed) {
			this.listener = listener;
			this.subscribed = subscribed;
		}

	}

	/**
	 * One member's place on a channel.
	 * @param <L> the channel's listener type
	 */
	public final class Membership<L extends ChannelListener> implements AutoCloseable {

		private final String channel;

		private final Channel<L> joined;

		private final java.util.concurrent.atomic.AtomicBoolean left = new java.util.concurrent.atomic.AtomicBoolean();

		private Membership(String channel, Channel<L> joined) {
			this.channel = channel;
			this.joined = joined;
		}

		/** The listener shared by all members of the channel. */
		public L listener() {
			return joined.listener;
		}

		/**
		 * Whether this membership is of the subscription that {@code mark} was taken of
		 * ({@link ChannelSubscriptions#confirmedSubscription}), uninterrupted since.
		 */
		public boolean continues(@Nullable Object mark) {
			return mark != null && mark == joined;
		}

		/** Completes when Redis has confirmed the subscription. */
		public CompletableFuture<Void> subscribed() {
			return joined.subscribed;
		}

		/** Leaves the channel; the last member to leave unsubscribes. Idempotent. */
		@Override
		public void close() {
			if (left.compareAndSet(false, true)) {
				leave(channel, joined);
			}
		}

	}

}
