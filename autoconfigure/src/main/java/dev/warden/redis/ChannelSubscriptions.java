package dev.warden.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reference-counted channel subscriptions over one client's single pub/sub connection.
 * <p>
 * The first member of a channel sends {@code SUBSCRIBE}, the last one to leave sends
 * {@code UNSUBSCRIBE}; in between, all members share one {@link ChannelListener}. {@code UNSUBSCRIBE}
 * is sent while the channel's map entry is being removed, {@code SUBSCRIBE} once the new entry is
 * in the map and before its first member gets its membership (no other member can leave it empty
 * before that), so for any one channel they go out in the order the members joined and left, and
 * the subscription's own confirmation always finds the channel in the map: any later one follows a
 * reconnect. A connection that closes re-sends what was written to it behind what was sent later;
 * Redis's confirmations then say what it ran last, and a channel whose members Redis unsubscribed,
 * or that Redis subscribed without members, is put right ({@link #send}).
 */
public final class ChannelSubscriptions {

	private static final Logger logger = LoggerFactory.getLogger(ChannelSubscriptions.class);

	private final StatefulRedisPubSubConnection<String, String> connection;

	private final ConcurrentMap<String, Channel<?>> channels = new ConcurrentHashMap<>();

	/**
	 * The channels whose last member left or whose subscription failed, the latest
	 * {@value #LEFT_REMEMBERED} to do so (guarded by itself): a confirmation of one that comes without
	 * members is a subscription of this class's to undo, where other subscriptions on the same
	 * connection (Sentinel's announcements) are left alone.
	 */
	private final Map<String, Boolean> left = new LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > LEFT_REMEMBERED;
		}

	};

	private static final int LEFT_REMEMBERED = 1024;

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
				Channel<?> subscribed = member(channel);
				if (subscribed == null) {
					// No member: a SUBSCRIBE that Redis ran after the last member's UNSUBSCRIBE (a
					// reconnect re-sent it behind), or one whose member left before it was confirmed.
					// Only of channels this class left: others on the connection are not its own.
					if (leftLately(channel)) {
						send(channel, false);
					}
					return;
				}
				// The first confirmation of the channel is the subscription's own, and confirms it to its
				// members (not the reply to its SUBSCRIBE command: Lettuce completes the first SUBSCRIBE
				// waiting with a confirmation of any channel, such as one it renews after a reconnect).
				// Any later one follows a reconnect. (A confirmation of an earlier subscription of the
				// name, left before Redis confirmed it, may come first: an UNSUBSCRIBE follows it, which
				// is put right, and at worst a listener looks again once for nothing.)
				if (subscribed.confirmations.getAndIncrement() == 0) {
					subscribed.subscribed.complete(null);
				}
				else {
					subscribed.listener.onResubscribed();
				}
			}

			@Override
			public void unsubscribed(String channel, long count) {
				Channel<?> subscribed = member(channel);
				// Members whose subscription Redis had confirmed: an UNSUBSCRIBE of earlier members ran
				// after it (a reconnect re-sent it behind), and they hear nothing any more. Subscribed
				// again; the renewal is told to the listener, as after a reconnect. (Members whose
				// SUBSCRIBE is not confirmed yet get it after this.)
				if (subscribed != null && subscribed.confirmed()) {
					send(channel, true);
				}
			}
		});
	}

	/**
	 * Puts Redis's subscription of a channel right, from a pub/sub confirmation on the event loop: a
	 * connection that closes re-sends the commands written to it behind those sent later, so a
	 * channel's {@code SUBSCRIBE} and {@code UNSUBSCRIBE} may reach Redis in another order than its
	 * members joined and left. Whatever Redis ran last, the channel ends subscribed while it has
	 * members and unsubscribed when it has none.
	 */
	private void send(String channel, boolean subscribe) {
		try {
			if (subscribe) {
				connection.async().subscribe(channel);
			}
			else {
				connection.async().unsubscribe(channel);
			}
		}
		catch (RuntimeException ex) {
			// The connection closed: reconnecting renews what Lettuce knows to be subscribed, and the
			// confirmations put it right again.
			logger.debug("Could not {} channel {} to match its members", subscribe ? "subscribe to" : "unsubscribe from",
					channel, ex);
		}
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
						failed(channel, joined, failure);
					}
					else {
						confirmLater(channel, joined);
					}
				});
			}
			catch (RuntimeException ex) {
				// Lettuce refuses commands at once when the connection is closed.
				failed(channel, joined, ex);
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
		return (subscribed != null && subscribed.confirmed())
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
			// Marked before UNSUBSCRIBE goes out: its confirmation may come before the entry is gone.
			existing.gone = true;
			remember(name);
			connection.async().unsubscribe(name);
			return null;
		});
	}

	/**
	 * A channel's {@code SUBSCRIBE} failed (refused, timed out, its connection lost) before Redis
	 * confirmed it: its members fail, whoever joins next subscribes again, and if Redis runs it after
	 * all (a stall that ends), its confirmation without members is undone.
	 */
	private void failed(String channel, Channel<?> joined, Throwable failure) {
		if (joined.subscribed.completeExceptionally(failure)) {
			joined.gone = true;
			channels.remove(channel, joined);
			remember(channel);
		}
	}

	/**
	 * Once Lettuce has answered a channel's {@code SUBSCRIBE}: sends it again when Redis has not
	 * confirmed the channel within the command timeout while it has members. Lettuce may have answered
	 * the command with another channel's confirmation (one it renews after a reconnect), and then
	 * does not send it again after the next reconnect. Stops once confirmed or left.
	 */
	private void confirmLater(String channel, Channel<?> joined) {
		long timeoutMillis = Math.max(1, connection.getTimeout().toMillis());
		try {
			connection.getResources().eventExecutorGroup().schedule(() -> {
				if (member(channel) == joined && !joined.subscribed.isDone()) {
					logger.debug("Redis did not confirm the subscription to {} within {} ms; subscribing again", channel,
							timeoutMillis);
					send(channel, true);
					confirmLater(channel, joined);
				}
			}, timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The client is shutting down.
		}
	}

	/** Remembers a channel whose last member left, as the latest. */
	private void remember(String channel) {
		synchronized (left) {
			left.remove(channel);
			left.put(channel, Boolean.TRUE);
		}
	}

	/** The channel's entry while it has members; {@code null} once its last member left. */
	private @Nullable Channel<?> member(String channel) {
		Channel<?> subscribed = channels.get(channel);
		return (subscribed != null && !subscribed.gone) ? subscribed : null;
	}

	/** Whether the channel is among those whose last member left lately. */
	private boolean leftLately(String channel) {
		synchronized (left) {
			return left.containsKey(channel);
		}
	}

	private static final class Channel<L extends ChannelListener> {

		final L listener;

		final CompletableFuture<Void> subscribed;

		/** How often Redis confirmed the subscription: more than once after a reconnect. */
		final java.util.concurrent.atomic.AtomicInteger confirmations = new java.util.concurrent.atomic.AtomicInteger();

		// Guarded by the map's per-key compute.
		int members = 1;

		/** Its last member left: set before its {@code UNSUBSCRIBE} goes out. */
		volatile boolean gone;

		/** Whether Redis confirmed its subscription (its own first confirmation came). */
		boolean confirmed() {
			return subscribed.isDone() && !subscribed.isCompletedExceptionally();
		}

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
