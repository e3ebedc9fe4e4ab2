package dev.warden.redis;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves Warden's connections to a Sentinel-managed master within moments of its promotion.
 * <p>
 * After a fail-over, Lettuce's connections stay on the deposed master, which keeps taking writes
 * until the Sentinels turn it into a replica (seconds later), and those writes are lost then. Every
 * Sentinel announces the current master every two seconds on the {@code __sentinel__:hello}
 * channel of each node it watches, the deposed master included, so the pub/sub connection hears of
 * the promotion there.
 * <p>
 * Anyone allowed to {@code PUBLISH} on the node can send on that channel too, so a message is only
 * a reason to ask: it is heard only when the client was built from a Sentinel {@link RedisURI},
 * only for the master name of that URI, and the connections move only when a Sentinel, asked
 * ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}), names a master that is not the node they are on
 * (compared by address and port: a master the Sentinels name by host name is resolved).
 * Then both are closed from the server side ({@code CLIENT KILL ID}), and Lettuce reconnects them,
 * asking the Sentinels for the master again. Sentinels are asked at most once per
 * {@value #CHECK_PAUSE_MILLIS} ms, however many messages come. Without Sentinel the channel is not
 * subscribed to at all. A {@code READONLY} answer (the node is a replica already) moves the
 * connections too, with or without Sentinel: a reconnect resolves the node's name again.
 */
final class MasterFollower extends RedisPubSubAdapter<String, String> {

	private static final Logger logger = LoggerFactory.getLogger(MasterFollower.class);

	/** Where Sentinels announce themselves and the master: {@code ip,port,runid,epoch,name,master-ip,master-port,epoch}. */
	static final String HELLO_CHANNEL = "__sentinel__:hello";

	/** The least time between two moves prompted by {@code READONLY} answers. */
	private static final long READ_ONLY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);

	/** The least time between two questions to the Sentinels prompted by messages on the channel. */
	static final long CHECK_PAUSE_MILLIS = 500;

	/** How long the addresses of the master's host name are used before it is resolved again. */
	static final long RESOLVED_MILLIS = 10_000;

	private static final @Nullable Field CLIENT_URI = clientUriField();

	private final RedisClient client;

	/** The client's Sentinel URI, or {@code null} without Sentinel: then the channel is not followed. */
	private final @Nullable RedisURI sentinels;

	/** The first command connection: it asks the node about itself. */
	private final StatefulRedisConnection<String, String> commands;

	/** Every command connection, the first included. */
	private final List<StatefulRedisConnection<String, String>> lanes;

	/** How long a question to the node may take before the check gives up, to try at the next announcement. */
	private final Duration commandTimeout;

	private final StatefulRedisPubSubConnection<String, String> pubSub;

	private final AtomicBoolean moving = new AtomicBoolean();

	/**
	 * The command connections being closed to move them to the new master: the scripts they had in
	 * flight are sent again there ({@link #closedToMove}).
	 */
	private final Set<StatefulConnection<?, ?>> closingToMove = ConcurrentHashMap.newKeySet();

	/** When a {@code READONLY} answer last moved the connections. */
	private volatile long lastReadOnlyMove = System.nanoTime() - READ_ONLY_PAUSE_NANOS;

	/** When the Sentinels were last asked, by {@link System#nanoTime()}. */
	private volatile long lastCheck = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(CHECK_PAUSE_MILLIS);

	/** The master address the Sentinels last confirmed: announcements of it ask nothing more. */
	private volatile @Nullable String actedOn;

	/** The master's host name as last resolved. */
	private volatile @Nullable Resolved resolved;

	MasterFollower(RedisClient client, List<StatefulRedisConnection<String, String>> lanes,
			StatefulRedisPubSubConnection<String, String> pubSub, Duration commandTimeout) {
		this.client = client;
		this.commandTimeout = commandTimeout;
		this.sentinels = sentinelUri(client);
		this.commands = lanes.get(0);
		this.lanes = List.copyOf(lanes);
		this.pubSub = pubSub;
	}

	/**
	 * With Sentinel, listens for the Sentinels' announcements; a Redis that refuses the channel is
	 * not followed. Without Sentinel, does nothing.
	 */
	void start() {
		if (sentinels == null) {
			return;
		}
		pubSub.addListener(this);
		pubSub.async().subscribe(HELLO_CHANNEL).whenComplete((ignored, failure) -> {
			if (failure != null) {
				logger.debug("Not following Sentinel fail-overs: cannot subscribe to {}", HELLO_CHANNEL, failure);
			}
		});
	}

	@Override
	public void message(String channel, String message) {
		RedisURI uri = sentinels;
		if (uri == null || !HELLO_CHANNEL.equals(channel)) {
			return;
		}
		String[] fields = message.split(",");
		if (fields.length >= 7 && fields[4].equals(uri.getSentinelMasterId())
				&& !(fields[5] + ":" + fields[6]).equals(actedOn)) {
			askTheSentinels(uri);
		}
	}

	/** A command met a replica: the connections are on a deposed master. */
	void onReadOnly() {
		long now = System.nanoTime();
		if (now - lastReadOnlyMove >= READ_ONLY_PAUSE_NANOS && moving.compareAndSet(false, true)) {
			lastReadOnlyMove = now;
			move("the node answered READONLY", null);
		}
	}

	/**
	 * Asks a Sentinel for the master, at most once per pause and once at a time: an announcement
	 * is only a reason to ask, since anyone who may publish on the node can send one.
	 */
	private void askTheSentinels(RedisURI uri) {
		long now = System.nanoTime();
		if (now - lastCheck < TimeUnit.MILLISECONDS.toNanos(CHECK_PAUSE_MILLIS) || !moving.compareAndSet(false, true)) {
			return;
		}
		lastCheck = now;
		CompletableFuture<SocketAddress> asking;
		try {
			asking = client.connectSentinelAsync(StringCodec.UTF8, uri).thenCompose(sentinel -> sentinel.async()
				.getMasterAddrByName(uri.getSentinelMasterId())
				.whenComplete((address, failure) -> sentinel.closeAsync()));
		}
		catch (RuntimeException ex) {
			asking = CompletableFuture.failedFuture(ex);
		}
		asking.whenComplete((address, failure) -> {
			if (failure != null || !(address instanceof InetSocketAddress master)) {
				logger.debug("Could not ask the Sentinels for master '{}'", uri.getSentinelMasterId(), failure);
				moving.set(false);
				return;
			}
			masterIs(master);
		});
	}

	/**
	 * A Sentinel names {@code master}: moves the connections unless every command connection is on
	 * it (each reconnects by itself, so one may be on the new master and another still on the
	 * deposed one). Sentinels may name the master by host name ({@code announce-hostnames yes})
	 * while the server gives the connection's address as an IP, so the name is resolved (on another
	 * thread than the event loop's, and cached for {@value #RESOLVED_MILLIS} ms) and a connection is
	 * on the master when one of its addresses, and the port, are those of the connection's server
	 * end.
	 */
	private void masterIs(InetSocketAddress master) {
		String named = master.getHostString() + ":" + master.getPort();
		CompletableFuture<?> comparing;
		try {
			List<CompletableFuture<String>> infos = lanes.stream()
				.map(lane -> lane.async().clientInfo().toCompletableFuture()
					.orTimeout(commandTimeout.toNanos(), TimeUnit.NANOSECONDS))
				.toList();
			comparing = CompletableFuture.allOf(infos.toArray(CompletableFuture<?>[]::new)).thenRunAsync(() -> {
				List<String> nodes = infos.stream().map(info -> field(info.join(), "laddr")).toList();
				compare(named, nodes, nodes.contains(null) ? new InetAddress[0] : resolve(master.getHostString()),
						master.getPort());
			}, client.getResources().eventExecutorGroup());
		}
		catch (RuntimeException ex) {
			comparing = CompletableFuture.failedFuture(ex);
		}
		comparing.whenComplete((ignored, failure) -> {
			if (failure != null) {
				logger.debug("Could not compare master {} with the node of Warden's connections", named, failure);
				moving.set(false);
			}
		});
	}

	private void compare(String named, List<@Nullable String> nodes, InetAddress[] addresses, int port) {
		actedOn = named;
		List<Integer> elsewhere = elsewhere(nodes, addresses, port);
		if (elsewhere.isEmpty()) {
			moving.set(false);
		}
		else {
			move("the Sentinels name " + named + " the master, and a connection of Warden's is on "
					+ nodes.get(elsewhere.get(0)), elsewhere);
		}
	}

	/**
	 * Which of the connections, by the server ends they are on ({@code laddr}), are not on the master
	 * at {@code addresses} and {@code port}: none when a node is not known (Redis before 6.2).
	 */
	static List<Integer> elsewhere(List<@Nullable String> nodes, InetAddress[] addresses, int port) {
		List<Integer> elsewhere = new ArrayList<>();
		for (int i = 0; i < nodes.size(); i++) {
			String node = nodes.get(i);
			if (node == null) {
				return List.of();
			}
			if (!isOn(node, addresses, port)) {
				elsewhere.add(i);
			}
		}
		return elsewhere;
	}

	/** The addresses of {@code host}, at most {@value #RESOLVED_MILLIS} ms old. */
	private InetAddress[] resolve(String host) {
		Resolved last = resolved;
		long now = System.nanoTime();
		if (last != null && last.host().equals(host) && now - last.at() < TimeUnit.MILLISECONDS.toNanos(RESOLVED_MILLIS)) {
			return last.addresses();
		}
		try {
			InetAddress[] addresses = InetAddress.getAllByName(host);
			resolved = new Resolved(host, addresses, now);
			return addresses;
		}
		catch (UnknownHostException ex) {
			throw new IllegalStateException("Cannot resolve the master's host name " + host, ex);
		}
	}

	/**
	 * Whether {@code laddr} ({@code CLIENT INFO}: the address of the server's end of the connection,
	 * {@code ip:port}, an IPv6 one in brackets or not) is one of {@code addresses} at {@code port}.
	 * Called off the event loop.
	 */
	static boolean isOn(String laddr, InetAddress[] addresses, int port) {
		int colon = laddr.lastIndexOf(':');
		if (colon <= 0) {
			return false;
		}
		String ip = laddr.substring(0, colon);
		if (ip.startsWith("[") && ip.endsWith("]")) {
			ip = ip.substring(1, ip.length() - 1);
		}
		int nodePort;
		InetAddress node;
		try {
			nodePort = Integer.parseInt(laddr.substring(colon + 1));
			// An IP literal: not looked up.
			node = InetAddress.getByName(ip);
		}
		catch (IllegalArgumentException | UnknownHostException ex) {
			return false;
		}
		if (nodePort != port) {
			return false;
		}
		for (InetAddress address : addresses) {
			if (address.equals(node)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Closes connections from the server side, each through itself (they may be on different nodes
	 * by now); Lettuce reconnects them to the master. The pub/sub connection always goes, and the
	 * command connections {@code lanes} names, or all when {@code null}.
	 */
	private void move(String why, @Nullable List<Integer> which) {
		logger.info("Reconnecting Warden to the Redis master: {}", why);
		List<CompletableFuture<?>> kills = new ArrayList<>();
		kills.add(killItself(pubSub.async().clientId().toCompletableFuture(),
				id -> pubSub.async().clientKill(KillArgs.Builder.id(id).skipme(false)).toCompletableFuture()));
		List<StatefulConnection<?, ?>> closing = new ArrayList<>();
		for (int i = 0; i < lanes.size(); i++) {
			if (which == null || which.contains(i)) {
				StatefulRedisConnection<String, String> lane = lanes.get(i);
				closing.add(lane);
				closingToMove.add(lane);
				kills.add(killItself(lane.async().clientId().toCompletableFuture(),
						id -> lane.async().clientKill(KillArgs.Builder.id(id).skipme(false)).toCompletableFuture()));
			}
		}
		CompletableFuture.allOf(kills.toArray(CompletableFuture<?>[]::new))
			.orTimeout(commandTimeout.toNanos(), TimeUnit.NANOSECONDS)
			.whenComplete((ignored, failure) -> {
				closing.forEach(closingToMove::remove);
				moving.set(false);
			});
	}

	/**
	 * Whether {@code connection} closed because this follower moves it to the new master, which it
	 * then no longer is. The scripts it had in flight are sent again there, as Lettuce does: what
	 * they wrote on the deposed master is discarded when it resynchronises as a replica of the new
	 * one, so they run once where it counts, and a caller in the middle of a fail-over is not told
	 * that a call may have run.
	 */
	boolean closedToMove(StatefulConnection<?, ?> connection) {
		return closingToMove.remove(connection);
	}

	/** Kills the client {@code id} names, once known; completes either way (a killed connection's reply may never come). */
	private static CompletableFuture<?> killItself(CompletableFuture<Long> id,
			Function<Long, CompletableFuture<Long>> kill) {
		return id.thenCompose(known -> kill.apply(known).handle((killed, failure) -> killed))
			.handle((killed, failure) -> killed);
	}

	/** The Sentinel URI {@code client} was built with, or {@code null} when it has none (or it cannot be read). */
	private static @Nullable RedisURI sentinelUri(RedisClient client) {
		if (CLIENT_URI == null) {
			return null;
		}
		try {
			return (CLIENT_URI.get(client) instanceof RedisURI uri && !uri.getSentinels().isEmpty()
					&& uri.getSentinelMasterId() != null) ? uri : null;
		}
		catch (IllegalAccessException | RuntimeException ex) {
			return null;
		}
	}

	private static @Nullable Field clientUriField() {
		try {
			Field field = RedisClient.class.getDeclaredField("redisURI");
			if (!RedisURI.class.equals(field.getType())) {
				return null;
			}
			field.setAccessible(true);
			return field;
		}
		catch (NoSuchFieldException | RuntimeException | LinkageError ex) {
			logger.info("Warden follows Sentinel fail-overs only as Lettuce reconnects: the client's Sentinel "
					+ "settings are not reachable ({})", ex.toString());
			return null;
		}
	}

	/** A host name's addresses, and when they were looked up, by {@link System#nanoTime()}. */
	private record Resolved(String host, InetAddress[] addresses, long at) {
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
