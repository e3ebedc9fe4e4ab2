package dev.warden.redis;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/**
 * {@link FlushCoalescing} on a Redis Cluster connection. Its commands go out on the connections of
 * the masters that own their slots (the ones Lettuce routes writes through, one per master), so
 * each of those gets the handler, on its first channel and again after each reconnect. A fail-over
 * or a new master brings new node connections: the masters are looked at again every
 * 5 s on the engine's scheduler. A master that cannot be reached is left to a
 * later pass; its commands cannot go out meanwhile anyway.
 * <p>
 * It also tells the engine when one of those connections closes ({@link RedisEngine#connectionLost()}),
 * so that the scripts written to it are not sent again.
 */
final class ClusterFlushCoalescing {

	private static final long RECHECK_SECONDS = 5;

	private final StatefulRedisClusterConnection<String, String> connection;

	/** The node connections that have the reconnect listener, the closed ones dropped on each pass. */
	private final Set<RedisChannelHandler<?, ?>> followed = Collections.newSetFromMap(new IdentityHashMap<>());

	private final Runnable onClosed;

	private ClusterFlushCoalescing(StatefulRedisClusterConnection<String, String> connection, Runnable onClosed) {
		this.connection = connection;
		this.onClosed = onClosed;
	}

	/**
	 * Installs the handler on the connections of the masters the connection knows now, and keeps
	 * doing so on {@code scheduler} until it shuts down.
	 * @param onClosed called on the event loop of a master's connection when it closes
	 * @return the installer, which can tell whether every master's connection has the handler
	 */
	static ClusterFlushCoalescing start(StatefulRedisClusterConnection<String, String> connection,
			ScheduledExecutorService scheduler, Runnable onClosed) {
		ClusterFlushCoalescing coalescing = new ClusterFlushCoalescing(connection, onClosed);
		coalescing.installOnMasters();
		scheduler.scheduleWithFixedDelay(coalescing::installOnMasters, RECHECK_SECONDS, RECHECK_SECONDS,
				TimeUnit.SECONDS);
		return coalescing;
	}

	/** Whether the connection of every master that owns slots exists and coalesces flushes. */
	boolean installedOnAllMasters() {
		boolean any = false;
		for (RedisClusterNode node : connection.getPartitions()) {
			if (!node.hasNoSlots()) {
				StatefulRedisConnection<String, String> master = masterConnection(node).getNow(null);
				if (!(master instanceof RedisChannelHandler<?, ?> handler) || !FlushCoalescing.installed(handler)) {
					return false;
				}
				any = true;
			}
		}
		return any;
	}

	private void installOnMasters() {
		try {
			synchronized (followed) {
				followed.removeIf(RedisChannelHandler::isClosed);
			}
			for (RedisClusterNode node : connection.getPartitions()) {
				// Masters without slots too: one importing a slot takes the scripts an ASK sends it.
				if (!node.hasNoSlots() || !node.is(RedisClusterNode.NodeFlag.REPLICA)) {
					masterConnection(node).thenAccept(this::follow);
				}
			}
		}
		catch (RuntimeException | LinkageError ex) {
			// A connection closing, or a Lettuce without these methods: commands are flushed one by one.
		}
	}

	private CompletableFuture<StatefulRedisConnection<String, String>> masterConnection(RedisClusterNode node) {
		RedisURI uri = node.getUri();
		return connection.getConnectionAsync(uri.getHost(), uri.getPort());
	}

	private void follow(StatefulRedisConnection<String, String> node) {
		if (!(node instanceof RedisChannelHandler<?, ?> handler)) {
			return;
		}
		boolean added;
		synchronized (followed) {
			added = followed.add(handler);
		}
		if (added) {
			handler.addListener(new RedisConnectionStateListener() {
				@Override
				public void onRedisDisconnected(RedisChannelHandler<?, ?> closed) {
					onClosed.run();
				}
			});
			FlushCoalescing.follow(node);
		}
		else {
			// Followed already: a channel it missed (its listener was added after a reconnect began).
			FlushCoalescing.install(handler);
		}
	}

}
