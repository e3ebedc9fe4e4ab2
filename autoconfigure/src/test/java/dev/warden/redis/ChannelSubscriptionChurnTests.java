package dev.warden.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Members join and leave one channel from several threads while the pub/sub connection is killed
 * once: the member that stays at the end, its subscription confirmed, must hear what is published
 * on the channel (a lock waiter or a task consumer in its place would otherwise never hear a
 * release or a wake-up).
 */
class ChannelSubscriptionChurnTests {

	private static final Duration WITHIN = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** Redis's confirmations, in its order. */
	private Queue<String> confirmations;

	private StatefulRedisPubSubConnection<String, String> connection;

	private ChannelSubscriptions subscriptions;

	@BeforeEach
	void connect() {
		connection = clients.redisClient(redis.node()).connectPubSub();
		subscriptions = new ChannelSubscriptions(connection);
		confirmations = PubSubProbes.confirmations(connection);
	}

	@AfterEach
	void close() {
		connection.close();
	}

	static final class Hearing implements ChannelListener {

		final CountDownLatch heard = new CountDownLatch(1);

		@Override
		public void onMessage(String message) {
			heard.countDown();
		}

	}

	@Test
	void theMemberLeftAfterJoinLeaveChurnAcrossAKillHearsTheChannel() throws Exception {
		int threads = 4;
		for (int round = 0; round < 120; round++) {
			String channel = "churn-" + round;
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			CyclicBarrier start = new CyclicBarrier(threads);
			List<Future<ChannelSubscriptions.Membership<Hearing>>> joined = new ArrayList<>();
			int keeper = round % threads;
			for (int t = 0; t < threads; t++) {
				boolean keeps = t == keeper;
				boolean kills = t == 0;
				joined.add(pool.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					for (int i = 0; i < 50; i++) {
						if (kills && i == 25) {
							redis.node().call("CLIENT", "KILL", "TYPE", "pubsub");
						}
						subscriptions.join(channel, Hearing::new).close();
					}
					return keeps ? subscriptions.join(channel, Hearing::new) : null;
				}));
			}
			ChannelSubscriptions.Membership<Hearing> member = null;
			for (Future<ChannelSubscriptions.Membership<Hearing>> each : joined) {
				ChannelSubscriptions.Membership<Hearing> kept = each.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
				if (kept != null) {
					member = kept;
				}
			}
			pool.shutdown();
			assertThat(member).isNotNull();
			try {
				member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				// Its SUBSCRIBE was lost with the connection, and it is told so: a member that joins
				// now subscribes again.
				member.close();
				member = subscriptions.join(channel, Hearing::new);
				member.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
			}
			// Confirmed, so it hears what is published now; a bounded look, publishing again in case
			// a renewal after the kill is still under way.
			boolean heard = false;
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (!heard && System.nanoTime() < deadline) {
				redis.node().call("PUBLISH", channel, "wake-up");
				heard = member.listener().heard.await(200, TimeUnit.MILLISECONDS);
			}
			String suffix = " " + channel;
			List<String> confirmed = confirmations.stream()
				.filter(each -> each.endsWith(suffix))
				.map(each -> each.substring(0, each.length() - suffix.length()))
				.toList();
			assertThat(heard)
				.as("round %d: the member of %s hears it (PUBSUB NUMSUB %s; another channel joined now hears: %s; "
						+ "confirmations in Redis's order, the last ten: %s)", round, channel,
						redis.node().call("PUBSUB", "NUMSUB", channel), heard || connectionWorks("control-" + round),
						confirmed.subList(Math.max(0, confirmed.size() - 10), confirmed.size()))
				.isTrue();
			member.close();
		}
	}

	/** Whether a channel joined now hears what is published: the pub/sub connection is back. */
	private boolean connectionWorks(String channel) throws Exception {
		try (ChannelSubscriptions.Membership<Hearing> control = subscriptions.join(channel, Hearing::new)) {
			control.subscribed().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
			redis.node().call("PUBLISH", channel, "control");
			return control.listener().heard.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
	}

}
