package dev.warden.redis;

import java.lang.reflect.Field;
import java.net.SocketAddress;

import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.CommandEncoder;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the commands that many threads send on Warden's command connection share socket writes.
 * <p>
 * Lettuce flushes every command by itself: one {@code write} system call per command on the
 * connection's event-loop thread, which is most of that thread's time when many threads call at
 * once. A {@link FlushConsolidationHandler} in the channel's pipeline defers each flush to a task
 * queued on the event loop behind the writes already waiting there (or to the end of the read
 * being handled, for commands sent by reply callbacks), so a burst of commands leaves in one
 * {@code write}. A lone command waits only for the tasks ahead of it; the order of commands on the
 * connection and everything Lettuce does on a disconnect stay as they are.
 * <p>
 * Lettuce does not expose a connection's channel, so it is read from its endpoint's field; when
 * that fails (a Lettuce that changed it, a native image without the hint), the connection keeps
 * flushing each command, which is only slower. The handler is installed again on each new channel
 * after a reconnect.
 */
final class FlushCoalescing {

	private static final Logger logger = LoggerFactory.getLogger(FlushCoalescing.class);

	/** The name of the handler in the pipeline. */
	static final String HANDLER_NAME = "warden-flush-coalescing";

	/** Flush at the latest after this many deferred flushes, so that a long burst streams out. */
	private static final int FLUSH_AT_LATEST_AFTER = 64;

	private static final @Nullable Field CHANNEL = channelField();

	private FlushCoalescing() {
	}

	/**
	 * Installs the handler on the connection's channel now and on each new channel after a
	 * reconnect; nothing when the channel is not reachable.
	 * @param connection a standalone connection (Sentinel's, or one node's of a Cluster, included)
	 */
	static void follow(StatefulConnection<?, ?> connection) {
		try {
			if (connection instanceof RedisChannelHandler<?, ?> handler) {
				install(handler);
				handler.addListener(new RedisConnectionStateListener() {
					@Override
					public void onRedisConnected(RedisChannelHandler<?, ?> reconnected, SocketAddress address) {
						install(handler);
					}
				});
			}
		}
		catch (LinkageError ex) {
			// A Lettuce or Netty without the classes it needs: each command is flushed by itself.
		}
	}

	/**
	 * Installs the handler on the connection's current channel, unless it is there already.
	 * @param connection a standalone connection (Sentinel's included)
	 * @return whether the channel now coalesces flushes
	 */
	static boolean install(RedisChannelHandler<?, ?> connection) {
		Channel channel = channelOf(connection);
		if (channel == null) {
			return false;
		}
		ChannelPipeline pipeline = channel.pipeline();
		synchronized (pipeline) {
			if (pipeline.get(HANDLER_NAME) != null) {
				return true;
			}
			ChannelHandlerContext encoder = pipeline.context(CommandEncoder.class);
			if (encoder == null || !channel.isOpen()) {
				return false;
			}
			try {
				pipeline.addBefore(encoder.name(), HANDLER_NAME, new FlushConsolidationHandler(FLUSH_AT_LATEST_AFTER, true));
			}
			catch (RuntimeException ex) {
				// The channel closed meanwhile (its handlers were removed): the next one gets it.
				logger.debug("Could not add flush coalescing to {}", channel, ex);
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether the connection's current channel is known to be closed, its closing not yet handled by
	 * Lettuce: a command written to it now is never sent. {@code false} when the channel is not
	 * reachable.
	 */
	static boolean channelClosed(RedisChannelHandler<?, ?> connection) {
		Channel channel = channelOf(connection);
		return channel != null && !channel.isActive();
	}

	/** Whether the connection's current channel coalesces flushes. */
	static boolean installed(RedisChannelHandler<?, ?> connection) {
		Channel channel = channelOf(connection);
		return channel != null && channel.pipeline().get(HANDLER_NAME) != null;
	}

	private static @Nullable Channel channelOf(RedisChannelHandler<?, ?> connection) {
		if (CHANNEL == null) {
			return null;
		}
		RedisChannelWriter writer = connection.getChannelWriter();
		// The writers that wrap the endpoint, in Lettuce 6 (Boot 3) and 7 alike.
		for (int depth = 0; depth < 4 && !(writer instanceof DefaultEndpoint); depth++) {
			if (writer instanceof CommandExpiryWriter expiry) {
				writer = expiry.getDelegate();
			}
			else if (writer instanceof CommandListenerWriter listener) {
				writer = listener.getDelegate();
			}
			else {
				break;
			}
		}
		if (!(writer instanceof DefaultEndpoint endpoint)) {
			return null;
		}
		try {
			return (Channel) CHANNEL.get(endpoint);
		}
		catch (IllegalAccessException | RuntimeException ex) {
			return null;
		}
	}

	private static @Nullable Field channelField() {
		try {
			Field field = DefaultEndpoint.class.getDeclaredField("channel");
			if (!Channel.class.isAssignableFrom(field.getType())) {
				return null;
			}
			field.setAccessible(true);
			return field;
		}
		catch (NoSuchFieldException | RuntimeException | LinkageError ex) {
			logger.info("Warden's command connection flushes each command by itself: Lettuce's channel is not "
					+ "reachable ({}); commands sent at once by many threads cost a socket write each", ex.toString());
			return null;
		}
	}

}
