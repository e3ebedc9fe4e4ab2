package dev.warden.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.KillArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves Warden's two connections to a Sentinel-managed master within moments of its promotion.
 * <p>
 * After a fail-over, Lettuce's connections stay on the deposed master, which keeps taking writes
 * until the Sentinels turn it into a replica (seconds later), and those writes are lost then. Every
 * Sentinel announces the current master every two seconds on the {@code __sentinel__:hello}
 * channel of each node it watches, the deposed master included, so the pub/sub connection hears of
 * the promotion there. When the master it names is not the node the connections are on, both are
 * closed from the server side ({@code CLIENT KILL ID}), and Lettuce reconnects them, asking the
 * Sentinels for the master again. A {@code READONLY} answer (the node is a replica already) does
 * the same. Without Sentinels no message comes, and nothing happens.
 */
final class MasterFollower extends RedisPubSubAdapter<String, String> {

	private static final Logger logger = LoggerFactory.getLogger(MasterFollower.class);

	/** Where Sentinels announce themselves and the master: {@code ip,port,runid,epoch,name,master-ip,master-port,epoch}. */
	static final String HELLO_CHANNEL = "__sentinel__:hello";

	/** The least time between two moves prompted by {@code READONLY} answers. */
	private static final long READ_ONLY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final StatefulRedisConnection<String, String> commands;

	private final StatefulRedisPubSubConnection<String, String> pubSub;

	private final AtomicBoolean moving = new AtomicBoolean();

	/** When a {@code READONLY} answer last moved the connections. */
	private volatile long lastReadOnlyMove = System.nanoTime() - READ_ONLY_PAUSE_NANOS;

	/** The master address last acted on: each promotion moves the connections once. */
	private volatile @Nullable String actedOn;

	MasterFollower(StatefulRedisConnection<String, String> commands, StatefulRedisPubSubConnection<String, String> pubSub) {
		this.commands = commands;
		this.pubSub = pubSub;
	}

	/** Listens for the Sentinels' announcements; a Redis that refuses the channel is not followed. */
	void start() {
		pubSub.addListener(this);
		pubSub.async().subscribe(HELLO_CHANNEL).whenComplete((ignored, failure) -> {
			if (failure != null) {
				logger.debug("Not following Sentinel fail-overs: cannot subscribe to {}", HELLO_CHANNEL, failure);
			}
		});
	}

	@Override
	public void message(String channel, String message) {
		if (!HELLO_CHANNEL.equals(channel)) {
			return;
		}
		String[] fields = message.split(",");
		if (fields.length >= 7) {
			masterIs(fields[5] + ":" + fields[6]);
		}
	}

	/** A command met a replica: the connections are on a deposed master. */
	void onReadOnly() {
		long now = System.nanoTime();
		if (now - lastReadOnlyMove >= READ_ONLY_PAUSE_NANOS && moving.compareAndSet(false, true)) {
			lastReadOnlyMove = now;
			move("the node answered READONLY");
		}
	}

	private void masterIs(String master) {
		if (master.equals(actedOn) || !moving.compareAndSet(false, true)) {
			return;
		}
		commands.async().clientInfo().whenComplete((info, failure) -> {
			String node = (info != null) ? field(info, "laddr") : null;
			actedOn = master;
			if (failure != null || node == null || node.equals(master)) {
				// On the master already (or nothing to compare with: Redis before 6.2).
				moving.set(false);
				return;
			}
			move("the Sentinels name " + master + " the master, and Warden's connections are on " + node);
		});
	}

	/** Closes both connections from the server side; Lettuce reconnects them to the master. */
	private void move(String why) {
		logger.info("Reconnecting Warden to the Redis master: {}", why);
		pubSub.async().clientId().whenComplete((pubSubId, ignored) -> {
			if (pubSubId != null) {
				commands.async().clientKill(KillArgs.Builder.id(pubSubId));
			}
			commands.async().clientId().whenComplete((commandId, failure) -> {
				if (commandId != null) {
					commands.async().clientKill(KillArgs.Builder.id(commandId).skipme(false));
				}
				moving.set(false);
			});
		});
	}

	private static @Nullable String field(String clientInfo, String name) {
		for (String pair : clientInfo.trim().split(" ")) {
			if (pair.startsWith(name + "=")) {
				return pair.substring(name.length() + 1);
			}
		}
		return null;
	}

}
