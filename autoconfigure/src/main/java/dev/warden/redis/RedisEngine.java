package dev.warden.redis;

import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.warden.RedisAuthenticationException;
import dev.warden.RedisOutOfMemoryException;
import dev.warden.RedisUnavailableException;
import dev.warden.WardenException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of one Warden client: command connections used asynchronously by every caller, one
 * pub/sub connection behind {@link ChannelSubscriptions}, and one scheduler thread.
 * <p>
 * On a standalone Redis (Sentinel's included) a client may open several command connections, its
 * <em>lanes</em>: each script goes out on the lane of its first key's hash tag (or of the whole key
 * when it has none), so that the calls on one lock or one queue keep the order they were sent in,
 * and the lanes' sockets are spread over the event-loop threads of the client's resources. Other
 * commands go out on the first lane. On a Redis Cluster the cluster connection already holds one
 * connection per master, and the client has one lane.
 */
public final class RedisEngine implements AutoCloseable {

	/** The most command connections ({@link #connect(AbstractRedisClient, String, Duration, KeyNamespace, int)}). */
	public static final int MAX_LANES = dev.warden.WardenDefaults.MAX_CONNECTIONS;

	/** The longest wait before a script is sent again to a slot that was busy. */
	static final long MAX_SLOT_BACKOFF_MILLIS = 50;

	/** The most {@code MOVED} redirects a script follows from node to node, as Lettuce's own limit. */
	private static final int MAX_REDIRECTS = 5;

	private final StatefulConnection<String, String> commandConnection;

	private final RedisClusterAsyncCommands<String, String> commands;

	private final StatefulRedisPubSubConnection<String, String> pubSubConnection;

	private final ChannelSubscriptions subscriptions;

	private final ScheduledExecutorService scheduler;

	private final Duration commandTimeout;

	private final @Nullable MasterFollower follower;

	private final ReplicationBarrier replicationBarrier = new ReplicationBarrier(this);

	/** Where the keys and channels Warden names itself are. */
	private final KeyNamespace namespace;

	/** Whether scripts read the test clock's offset too ({@link #shiftClock()}). */
	private volatile boolean clockShifted;

	/** On a Redis Cluster: what installs flush coalescing on the masters' connections. */
	private @Nullable ClusterFlushCoalescing clusterFlushes;

	/** How many times a script was sent again (after {@code NOSCRIPT}, a busy slot, {@code READONLY}). */
	private final AtomicLong resends = new AtomicLong();

	/** How many times the command connection was lost. */
	private final AtomicLong disconnects = new AtomicLong();

	/**
	 * The scripts written to this engine's connection (on a Redis Cluster, to the connections of its
	 * masters) and not answered yet: when a connection closes, those written to it fail rather than
	 * being sent again ({@link SentScript}).
	 */
	private final Set<SentScript<?>> unanswered = ConcurrentHashMap.newKeySet();

	/** The scripts on this engine's connection, and whether its channel is known to have closed. */
	private final SentScript.Calls calls = new SentScript.Calls(unanswered, this::channelClosed);

	/**
	 * On the engine of one Redis Cluster node: how many scripts the node redirected ({@code MOVED},
	 * {@code ASK}) and that went to another node.
	 */
	private final AtomicLong redirects = new AtomicLong();

	/** On a Redis Cluster: the engines of its masters' connections. */
	private @Nullable ClusterNodes clusterNodes;

	/** On the engine of one Redis Cluster node: the cluster's engine; {@code null} otherwise. */
	private final @Nullable RedisEngine cluster;

	/** On the engine of one Redis Cluster node: its {@code host:port}; {@code null} otherwise. */
	private final @Nullable String nodeAddress;

	/**
	 * The engines of the lanes, this one first; this one alone on a lane's own engine, a Redis
	 * Cluster's and one of its nodes'.
	 */
	private final List<RedisEngine> lanes;

	/** On the engine of a lane after the first: the engine of the first; {@code null} otherwise. */
	private final @Nullable RedisEngine firstLane;

	private RedisEngine(StatefulConnection<String, String> commandConnection,
			RedisClusterAsyncCommands<String, String> commands,
			StatefulRedisPubSubConnection<String, String> pubSubConnection, String threadName,
			Duration commandTimeout, @Nullable MasterFollower follower, KeyNamespace namespace,
			List<StatefulRedisConnection<String, String>> otherLanes) {
		this.follower = follower;
		this.namespace = namespace;
		this.commandConnection = commandConnection;
		this.commands = commands;
		this.pubSubConnection = pubSubConnection;
		this.subscriptions = new ChannelSubscriptions(pubSubConnection);
		this.scheduler = newScheduler(threadName);
		this.commandTimeout = commandTimeout;
		this.cluster = null;
		this.nodeAddress = null;
		this.firstLane = null;
		List<RedisEngine> all = new ArrayList<>();
		all.add(this);
		otherLanes.forEach(lane -> all.add(new RedisEngine(this, lane)));
		this.lanes = List.copyOf(all);
		countDisconnects();
	}

	/**
	 * The engine of a lane after the first of {@code first}: its commands go out on {@code lane};
	 * everything else is the first lane's. It is closed by the first lane's engine.
	 */
	private RedisEngine(RedisEngine first, StatefulRedisConnection<String, String> lane) {
		this.follower = first.follower;
		this.commandConnection = lane;
		this.commands = lane.async();
		this.pubSubConnection = first.pubSubConnection;
		this.subscriptions = first.subscriptions;
		this.scheduler = first.scheduler;
		this.commandTimeout = first.commandTimeout;
		this.cluster = null;
		this.nodeAddress = null;
		this.namespace = first.namespace;
		this.lanes = List.of(this);
		this.firstLane = first;
		countDisconnects();
	}

	/**
	 * The engine of one node of {@code cluster}: its commands go out on {@code node}, the connection
	 * through which Lettuce sends the writes of the slots that node serves; everything else is the
	 * cluster engine's. It is never closed on its own.
	 */
	RedisEngine(RedisEngine cluster, StatefulRedisConnection<String, String> node, String address) {
		this.follower = null;
		this.commandConnection = node;
		this.commands = node.async();
		this.pubSubConnection = cluster.pubSubConnection;
		this.subscriptions = cluster.subscriptions;
		this.scheduler = cluster.scheduler;
		this.commandTimeout = cluster.commandTimeout;
		this.cluster = cluster;
		this.nodeAddress = address;
		this.namespace = cluster.namespace;
		this.lanes = List.of(this);
		this.firstLane = null;
		countDisconnects();
	}

	private void countDisconnects() {
		commandConnection.addListener(new RedisConnectionStateListener() {
			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
				connectionLost();
			}
		});
	}

	/**
	 * Whether this engine's connection is known to have closed, its closing not yet handled; never
	 * known of a Redis Cluster connection, whose scripts go out on the connections of its masters.
	 */
	private boolean channelClosed() {
		return commandConnection instanceof RedisChannelHandler<?, ?> handler && FlushCoalescing.channelClosed(handler);
	}

	/**
	 * A connection of this engine closed: counted, and the scripts written to it and not answered
	 * fail, unless Warden closed it to move it to a new master ({@link MasterFollower#closedToMove}).
	 * Called on the event loop of the channel that closed, as it closes.
	 */
	void connectionLost() {
		disconnects.incrementAndGet();
		if (follower != null && follower.closedToMove(commandConnection)) {
			// Closed to move it to a new master, where Lettuce sends the scripts in flight again.
			return;
		}
		SentScript.lost(unanswered, Thread.currentThread());
	}

	/**
	 * Opens the command and pub/sub connections on the application's client, waiting for them at
	 * most the longer of the client's connect timeout and the command timeout: a Redis that accepts
	 * TCP connections but never answers fails the call then, not after the client's own (minute-long)
	 * handshake timeout.
	 * @param client a {@link RedisClient} (standalone, Sentinel) or a {@link RedisClusterClient};
	 * it stays the application's to shut down
	 * @param threadName the name of the engine's scheduler thread
	 * @param commandTimeout how long a call waits for Redis before giving up
	 * @return the engine
	 * @throws RedisAuthenticationException when Redis refuses the client's credentials
	 * @throws RedisUnavailableException when Redis cannot be reached, or does not answer in time
	 */
	public static RedisEngine connect(AbstractRedisClient client, String threadName, Duration commandTimeout) {
		return connect(client, threadName, commandTimeout, KeyNamespace.WARDEN);
	}

	/**
	 * Opens the command and pub/sub connections on the application's client, as
	 * {@link #connect(AbstractRedisClient, String, Duration)} does, for an engine whose keys are in
	 * {@code namespace}.
	 * @param client a {@link RedisClient} (standalone, Sentinel) or a {@link RedisClusterClient};
	 * it stays the application's to shut down
	 * @param threadName the name of the engine's scheduler thread
	 * @param commandTimeout how long a call waits for Redis before giving up
	 * @param namespace where the keys and channels Warden names itself are
	 * @return the engine
	 * @throws RedisAuthenticationException when Redis refuses the client's credentials
	 * @throws RedisUnavailableException when Redis cannot be reached, or does not answer in time
	 */
	public static RedisEngine connect(AbstractRedisClient client, String threadName, Duration commandTimeout,
			KeyNamespace namespace) {
		return connect(client, threadName, commandTimeout, namespace, 1);
	}

	/**
	 * Opens the connections on the application's client, as
	 * {@link #connect(AbstractRedisClient, String, Duration, KeyNamespace)} does, with
	 * {@code lanes} command connections on a standalone Redis (Sentinel's included): each script
	 * goes out on the lane of its first key. On a Redis Cluster the engine has one lane whatever
	 * {@code lanes} says: the cluster connection holds one connection per master already.
	 * @param client a {@link RedisClient} (standalone, Sentinel) or a {@link RedisClusterClient};
	 * it stays the application's to shut down
	 * @param threadName the name of the engine's scheduler thread
	 * @param commandTimeout how long a call waits for Redis before giving up
	 * @param namespace where the keys and channels Warden names itself are
	 * @param lanes how many command connections to open, from 1 to {@value #MAX_LANES}
	 * @return the engine
	 * @throws RedisAuthenticationException when Redis refuses the client's credentials
	 * @throws RedisUnavailableException when Redis cannot be reached, or does not answer in time
	 */
	public static RedisEngine connect(AbstractRedisClient client, String threadName, Duration commandTimeout,
			KeyNamespace namespace, int lanes) {
		if (lanes < 1 || lanes > MAX_LANES) {
			throw new IllegalArgumentException("The number of command connections must be from 1 to " + MAX_LANES
					+ ", not " + lanes);
		}
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			throw new IllegalArgumentException("Unsupported Lettuce client: " + client.getClass().getName());
		}
		Duration connectTimeout = client.getOptions().getSocketOptions().getConnectTimeout();
		Duration bound = (connectTimeout.compareTo(commandTimeout) > 0) ? connectTimeout : commandTimeout;
		CompletableFuture<RedisEngine> connecting = new CompletableFuture<>();
		Thread opener = new Thread(() -> {
			try {
				RedisEngine engine = open(client, threadName, commandTimeout, namespace, lanes);
				if (!connecting.complete(engine)) {
					// Opened after the caller gave up: nobody will use it.
					engine.close();
				}
			}
			catch (RuntimeException | Error ex) {
				connecting.completeExceptionally(ex);
			}
		}, threadName + "-connect");
		opener.setDaemon(true);
		opener.start();
		try {
			return connecting.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// Connections that open after all are closed by the opener: nobody will use them.
			connecting.cancel(false);
			throw new RedisUnavailableException("Redis did not complete Warden's connections within "
					+ bound.toMillis() + " ms (the longer of the connect timeout, " + connectTimeout.toMillis()
					+ " ms, and the command timeout, " + commandTimeout.toMillis() + " ms): it accepts connections "
					+ "but does not answer, or it is too slow to reach", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw (Error) cause;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			connecting.cancel(false);
			throw new RedisUnavailableException("Interrupted while connecting to Redis", ex);
		}
	}

	private static RedisEngine open(AbstractRedisClient client, String threadName, Duration commandTimeout,
			KeyNamespace namespace, int lanes) {
		try {
			return openOnce(client, threadName, commandTimeout, namespace, lanes);
		}
		catch (RedisUnavailableException ex) {
			// A connection closed during the handshake can hide why: Redis may have refused the
			// credentials just before, and Lettuce then reports the closed channel ("Connection closed
			// prematurely", or "RedisHandshakeHandler not registered" when the close wins the race
			// with the handshake's own failure). One more attempt says why, or fails the same way.
			if (closedDuringHandshake(ex)) {
				return openOnce(client, threadName, commandTimeout, namespace, lanes);
			}
			throw ex;
		}
	}

	private static boolean closedDuringHandshake(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && (message.contains("Connection closed prematurely")
					|| message.contains("RedisHandshakeHandler not registered"))) {
				return true;
			}
		}
		return false;
	}

	private static RedisEngine openOnce(AbstractRedisClient client, String threadName, Duration commandTimeout,
			KeyNamespace namespace, int lanes) {
		StatefulConnection<String, String> commandConnection = null;
		List<StatefulRedisConnection<String, String>> otherLanes = new ArrayList<>();
		try {
			if (client instanceof RedisClusterClient cluster) {
				StatefulRedisClusterConnection<String, String> connection = cluster.connect(StringCodec.UTF8);
				commandConnection = connection;
				RedisEngine engine = new RedisEngine(connection, connection.async(),
						cluster.connectPubSub(StringCodec.UTF8), threadName, commandTimeout, null, namespace, List.of());
				engine.clusterFlushes = ClusterFlushCoalescing.start(connection, engine.scheduler,
						engine::connectionLost);
				engine.clusterNodes = new ClusterNodes(engine, cluster, connection);
				return engine;
			}
			StatefulRedisConnection<String, String> connection = ((RedisClient) client).connect(StringCodec.UTF8);
			commandConnection = connection;
			for (int i = 1; i < lanes; i++) {
				otherLanes.add(((RedisClient) client).connect(StringCodec.UTF8));
			}
			StatefulRedisPubSubConnection<String, String> pubSub = ((RedisClient) client).connectPubSub(StringCodec.UTF8);
			List<StatefulRedisConnection<String, String>> all = new ArrayList<>();
			all.add(connection);
			all.addAll(otherLanes);
			MasterFollower follower = new MasterFollower((RedisClient) client, all, pubSub, commandTimeout);
			follower.start();
			all.forEach(FlushCoalescing::follow);
			return new RedisEngine(connection, connection.async(), pubSub, threadName, commandTimeout, follower,
					namespace, otherLanes);
		}
		catch (RedisException ex) {
			if (commandConnection != null) {
				commandConnection.close();
			}
			otherLanes.forEach(StatefulConnection::close);
			String refusal = authenticationRefusal(ex);
			if (refusal != null) {
				throw new RedisAuthenticationException("Redis refused Warden's credentials: " + refusal, ex);
			}
			throw new RedisUnavailableException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
	}

	/** The message of Redis's refusal of the credentials, when that is why a connection failed. */
	private static @Nullable String authenticationRefusal(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")
					|| message.contains("invalid password") || message.contains("invalid username-password"))) {
				return message;
			}
			// The handshake's own failure can ride along with the one that ended the connection.
			for (Throwable suppressed : cause.getSuppressed()) {
				String refusal = authenticationRefusal(suppressed);
				if (refusal != null) {
					return refusal;
				}
			}
		}
		return null;
	}

	private static ScheduledExecutorService newScheduler(String threadName) {
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
			Thread thread = new Thread(runnable, threadName);
			thread.setDaemon(true);
			return thread;
		});
		executor.setRemoveOnCancelPolicy(true);
		return executor;
	}

	/**
	 * Sends {@code PING} on every connection, the command ones and the pub/sub one, and waits for
	 * both answers within the command timeout.
	 * @return how long the slower answer took, in microseconds
	 * @throws RedisUnavailableException naming the connection that did not answer
	 */
	public long ping() {
		long started = System.nanoTime();
		CompletableFuture<String> command = pingLanes();
		CompletableFuture<String> pubSub = pubSubConnection.async().ping().toCompletableFuture();
		await(command, "PING on the command connection");
		await(pubSub, "PING on the pub/sub connection");
		return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started);
	}

	/**
	 * Like {@link #ping()}, without blocking: completes with how long the slower answer took, in
	 * microseconds, or fails with {@link RedisUnavailableException} naming the connection that did
	 * not answer within {@code timeout}. A {@code PING} still unanswered then is cancelled, so none is
	 * left buffered for a reconnect.
	 * @param timeout how long to wait for both answers
	 */
	public CompletableFuture<Long> pingAsync(Duration timeout) {
		long started = System.nanoTime();
		CompletableFuture<String> command = pingLanes();
		CompletableFuture<String> pubSub = pubSubConnection.async().ping().toCompletableFuture();
		return CompletableFuture.allOf(command, pubSub)
			.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
			.handle((ignored, failure) -> {
				if (failure == null) {
					return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started);
				}
				String connection = (!command.isDone() || command.isCompletedExceptionally()) ? "command" : "pub/sub";
				command.cancel(false);
				pubSub.cancel(false);
				throw new RedisUnavailableException("PING on the " + connection + " connection was not answered within "
						+ timeout.toMillis() + " ms", failure);
			});
	}

	/** {@code PING} on every command connection: completes once all answered, fails when one fails. */
	private CompletableFuture<String> pingLanes() {
		CompletableFuture<String> first = commands.ping().toCompletableFuture();
		if (lanes.size() == 1) {
			return first;
		}
		CompletableFuture<?>[] pings = new CompletableFuture<?>[lanes.size()];
		pings[0] = first;
		for (int i = 1; i < pings.length; i++) {
			pings[i] = lanes.get(i).commands.ping().toCompletableFuture();
		}
		CommandReply<String> answered = new CommandReply<>(first);
		// A ping given up on (a timeout) is not left queued on any connection.
		answered.whenComplete((ignored, failure) -> {
			if (failure != null) {
				for (CompletableFuture<?> ping : pings) {
					ping.cancel(false);
				}
			}
		});
		CompletableFuture.allOf(pings).whenComplete((ignored, failure) -> {
			if (failure != null) {
				answered.completeExceptionally(failure);
			}
			else {
				answered.complete(first.join());
			}
		});
		return answered;
	}

	/**
	 * How many command connections the engine has: its lanes ({@link #connect(AbstractRedisClient,
	 * String, Duration, KeyNamespace, int)}).
	 */
	public int lanes() {
		return lanes.size();
	}

	/** The engines of the command connections, this one first: one per lane. */
	List<RedisEngine> laneEngines() {
		return lanes;
	}

	/** Sends {@code INFO} for {@code section} on the command connection. */
	public CompletableFuture<String> infoAsync(String section) {
		return commands.info(section).toCompletableFuture();
	}

	/** Sends {@code CONFIG GET} for {@code parameter} on the command connection. */
	public CompletableFuture<Map<String, String>> configGet(String parameter) {
		return commands.configGet(parameter).toCompletableFuture();
	}

	/**
	 * Runs {@code action} each time a command connection is established again after a loss (not
	 * the first time), on a Lettuce thread.
	 */
	public void onReconnect(Runnable action) {
		for (RedisEngine lane : lanes) {
			lane.commandConnection.addListener(new RedisConnectionStateListener() {
				@Override
				public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
					action.run();
				}
			});
		}
	}

	/**
	 * Whether every connection is open now, as Lettuce knows without asking Redis: false while
	 * any reconnects.
	 */
	public boolean connected() {
		return lanes.stream().allMatch(lane -> lane.commandConnection.isOpen()) && pubSubConnection.isOpen();
	}

	/**
	 * How many times a script call was sent again so far ({@link #eval} after {@code NOSCRIPT}, a
	 * busy slot or {@code READONLY}): a command sent right behind a script covers the script's
	 * write only when this did not change until the script's reply.
	 */
	public long resends() {
		return resends.get();
	}

	/**
	 * How many times the command connection was lost so far. Lettuce sends the commands still
	 * unanswered then again once it has reconnected, maybe to another node (a fail-over): a
	 * {@code WAIT} answered after a loss says nothing of a write sent before it.
	 */
	public long disconnects() {
		return disconnects.get();
	}

	/**
	 * On the engine of one Redis Cluster node: how many scripts sent on its connection were
	 * redirected ({@code MOVED}, {@code ASK}) so far, and sent through the cluster connection to the
	 * node that serves their slot. A {@code WAIT} on this node says nothing of such a write. Always
	 * {@code 0} on other engines.
	 */
	public long redirects() {
		return redirects.get();
	}

	/**
	 * {@code WAIT} for replicas, one at a time, shared by the writes that ask meanwhile, on this
	 * engine's command connection: on a Redis Cluster, use {@link #writeReplicated} or
	 * {@link #node}, whose connections reach the node of a key.
	 */
	public ReplicationBarrier replicationBarrier() {
		return replicationBarrier;
	}

	/**
	 * Sends a write that replicas must acknowledge, and the {@code WAIT} for it right behind, on the
	 * connection of the master that serves {@code key}: this engine's own, or on a Redis Cluster the
	 * connection of the master that owns the key's slot (the one Lettuce sends the slot's writes on),
	 * so that {@code WAIT} blocks that master's connection only and counts that master's replicas. A
	 * write that master redirects ({@code MOVED}, {@code ASK}) is sent on through the cluster and
	 * counts as acknowledged by none ({@link ReplicationBarrier}).
	 * @param key a key of the write, which decides its node on a Redis Cluster
	 * @param write sends the write on the engine it is given (scripts through its {@link #eval})
	 * @param replicas how many replicas must have it
	 * @param timeoutMillis how long Redis may wait for them
	 * @param <T> the write's reply type
	 * @return the write's reply, and its acknowledgement when asked for
	 */
	public <T> ReplicationBarrier.ReplicatedWrite<T> writeReplicated(String key,
			Function<RedisEngine, CompletableFuture<T>> write, int replicas, long timeoutMillis) {
		ClusterNodes nodes = clusterNodes;
		if (nodes == null) {
			// The write and its WAIT on one connection: the lane the write's scripts take.
			RedisEngine lane = laneOf(key);
			return lane.replicationBarrier.write(() -> write.apply(lane), replicas, timeoutMillis);
		}
		CompletableFuture<RedisEngine> node = nodes.ofKey(key);
		if (node.isDone() && !node.isCompletedExceptionally()) {
			RedisEngine target = node.join();
			return target.replicationBarrier.write(() -> write.apply(target), replicas, timeoutMillis);
		}
		// The node's connection is being opened: the write and its WAIT follow, in that order.
		CompletableFuture<ReplicationBarrier.ReplicatedWrite<T>> sent = node
			.thenApply(target -> target.replicationBarrier.write(() -> write.apply(target), replicas, timeoutMillis));
		return new ReplicationBarrier.ReplicatedWrite<>(sent.thenCompose(ReplicationBarrier.ReplicatedWrite::reply),
				() -> sent.thenCompose(ReplicationBarrier.ReplicatedWrite::acknowledged));
	}

	/**
	 * On a Redis Cluster: the engine of the master that serves {@code key}'s slot, as this client's
	 * view of the cluster says; completes once its connection is open.
	 * @throws IllegalStateException on another deployment
	 */
	public CompletableFuture<RedisEngine> node(String key) {
		return requireClusterNodes().ofKey(key);
	}

	/**
	 * On a Redis Cluster: {@code host:port} of the master that serves {@code key}'s slot, as this
	 * client's view of the cluster says; {@code null} when no master serves it.
	 * @throws IllegalStateException on another deployment
	 */
	public @Nullable String masterOf(String key) {
		return requireClusterNodes().addressOf(key);
	}

	/**
	 * On a Redis Cluster: {@code host:port} of the masters that serve slots, as this client's view
	 * of the cluster says.
	 * @throws IllegalStateException on another deployment
	 */
	public List<String> masters() {
		return requireClusterNodes().masters();
	}

	/**
	 * On a Redis Cluster: the engine of the master at {@code address} ({@code host:port}); completes
	 * once its connection is open.
	 * @throws IllegalStateException on another deployment
	 */
	public CompletableFuture<RedisEngine> nodeAt(String address) {
		return requireClusterNodes().at(address);
	}

	/**
	 * On a Redis Cluster, or the engine of one of its nodes: reads the cluster's topology again
	 * soon, once a node answered as a former master would (a redirect, a replica's refusal of
	 * {@code WAIT}), so that writes go to the node that serves their slot now. Does nothing on other
	 * deployments.
	 */
	public void topologyChanged() {
		RedisEngine owner = (cluster != null) ? cluster : this;
		ClusterNodes nodes = owner.clusterNodes;
		if (nodes != null) {
			nodes.refreshTopology();
		}
	}

	/** Whether {@code connection} is this engine's command connection. */
	boolean commandConnectionIs(StatefulConnection<?, ?> connection) {
		return commandConnection == connection;
	}

	/** Whether this is the engine of one node of a Redis Cluster ({@link #node}). */
	public boolean isClusterNode() {
		return cluster != null;
	}

	/** On the engine of one node of a Redis Cluster: its {@code host:port}; else {@code null}. */
	public @Nullable String nodeAddress() {
		return nodeAddress;
	}

	private ClusterNodes requireClusterNodes() {
		ClusterNodes nodes = clusterNodes;
		if (nodes == null) {
			throw new IllegalStateException("Not a Redis Cluster");
		}
		return nodes;
	}

	/** Where the keys and channels Warden names itself are: {@code warden:task:…} and so on by default. */
	public KeyNamespace namespace() {
		return namespace;
	}

	/**
	 * Moves this client's clock by the test clock's offset from now on: every script that reads
	 * Redis's clock, and {@link #clockMillis()}, add the offset held at the namespace's
	 * {@linkplain KeyNamespace#clockOffsetKey() clock offset key}. For tests only: each such script
	 * reads one key more.
	 * @throws IllegalStateException on a Redis Cluster, where that key is in another slot than the
	 * scripts' own
	 */
	public void shiftClock() {
		if (isCluster()) {
			throw new IllegalStateException("The test clock needs a standalone Redis (or one behind Sentinel): "
					+ "on a Redis Cluster its offset key is in another slot than a script's keys");
		}
		clockShifted = true;
	}

	/** Whether {@link #shiftClock()} was called. */
	public boolean clockShifted() {
		return clockShifted;
	}

	/**
	 * Redis's clock as this client's scripts read it: {@code TIME}, plus the test clock's offset when
	 * the clock is {@linkplain #shiftClock() shifted}.
	 * @return the time in epoch milliseconds
	 */
	public CompletableFuture<Long> clockMillis() {
		CompletableFuture<Long> time = map(commands.time().toCompletableFuture(),
				reply -> Long.parseLong(reply.get(0)) * 1000 + Long.parseLong(reply.get(1)) / 1000);
		if (!clockShifted) {
			return time;
		}
		CompletableFuture<String> offset = commands.get(namespace.clockOffsetKey()).toCompletableFuture();
		return time.thenCombine(offset, (millis, shift) -> millis + ((shift != null) ? Long.parseLong(shift) : 0));
	}

	/**
	 * Whether commands sent at once on the command connection share socket writes now: on a Redis
	 * Cluster, whether the connection of every master that owns slots does; false when Lettuce's
	 * channels are not reachable.
	 */
	public boolean coalescesFlushes() {
		if (clusterFlushes != null) {
			return clusterFlushes.installedOnAllMasters();
		}
		return lanes.stream().allMatch(lane -> lane.commandConnection instanceof RedisChannelHandler<?, ?> handler
				&& FlushCoalescing.installed(handler));
	}

	/** Whether the engine talks to a Redis Cluster. */
	public boolean isCluster() {
		return commandConnection instanceof StatefulRedisClusterConnection;
	}

	/** The engine's single scheduler thread: lease renewals and the timeouts of asynchronous waits. */
	public ScheduledExecutorService scheduler() {
		return scheduler;
	}

	/**
	 * Fails {@code reply} with {@link RedisUnavailableException} unless it completes within the
	 * command timeout, for callers that do not block (a blocking caller uses {@link #await}).
	 * @param reply the pending reply
	 * @param action what was asked, for the exception message
	 * @param <T> the reply type
	 * @return a future of the same reply
	 */
	public <T> CompletableFuture<T> withTimeout(CompletableFuture<T> reply, String action) {
		if (reply.isDone()) {
			return reply;
		}
		ScheduledFuture<?> timeout = scheduler.schedule(() -> reply.completeExceptionally(new RedisUnavailableException(
				"Redis did not answer " + action + " within " + commandTimeout.toMillis() + " ms")),
				commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		reply.whenComplete((value, failure) -> timeout.cancel(false));
		return reply;
	}

	/**
	 * Async commands on the first command connection: for commands that touch no key of a lock,
	 * queue or limiter (a read of one of them takes {@link #commands(String)}).
	 */
	public RedisClusterAsyncCommands<String, String> commands() {
		return commands;
	}

	/**
	 * Async commands on the connection of {@code key}'s lane, the one its scripts take, so that they
	 * run after the scripts on the same name sent before them.
	 * @param key a key of the lock, queue or limiter the commands touch
	 */
	public RedisClusterAsyncCommands<String, String> commands(String key) {
		return laneOf(key).commands;
	}

	public ChannelSubscriptions subscriptions() {
		return subscriptions;
	}

	public Duration commandTimeout() {
		return commandTimeout;
	}

	/**
	 * Runs a script with {@code EVALSHA}; when Redis answers {@code NOSCRIPT} (after
	 * {@code SCRIPT FLUSH}, a restart or a fail-over) it runs it once with {@code EVAL}, which also
	 * caches it again. When a Redis Cluster answers {@code TRYAGAIN} (the script's slot is being
	 * migrated and only some of its keys have moved) or {@code CLUSTERDOWN}, the script did not run:
	 * it is sent again after a short backoff (1 ms, doubling to {@value #MAX_SLOT_BACKOFF_MILLIS}
	 * ms) for as long as the command timeout allows, so that a resharding or a fail-over never
	 * reaches the caller as a failure.
	 * @param called the script
	 * @param type the reply type
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @param <T> the reply's Java type
	 * @return the reply
	 */
	public <T> CompletableFuture<T> eval(LuaScript called, ScriptOutputType type, String[] keys, String... args) {
		ClusterNodes nodes = clusterNodes;
		if (nodes != null && keys.length > 0) {
			return evalOn(nodes.ofKey(keys[0]), called, type, keys, args, 0);
		}
		if (lanes.size() > 1 && keys.length > 0) {
			return laneOf(keys[0]).evalHere(called, type, keys, args, 0);
		}
		return evalHere(called, type, keys, args, 0);
	}

	/**
	 * On a Redis Cluster: runs a script on the connection of a master, through that node's engine
	 * once it is open, as its own call ({@link SentScript}): a master's connection that closes fails
	 * the scripts written to it, and those alone. When no master is known for the slot, the cluster
	 * connection routes the script.
	 * @param hops how many redirects the call followed already
	 */
	private <T> CompletableFuture<T> evalOn(CompletableFuture<RedisEngine> node, LuaScript called,
			ScriptOutputType type, String[] keys, String[] args, int hops) {
		if (node.isDone()) {
			RedisEngine target = node.isCompletedExceptionally() ? this : node.join();
			return target.evalHere(called, type, keys, args, hops);
		}
		CommandReply<T> reply = new CommandReply<>(node);
		node.whenComplete((target, failure) -> {
			CompletableFuture<T> sent = ((failure == null) ? target : this).evalHere(called, type, keys, args, hops);
			reply.follow(sent);
			sent.whenComplete(reply::settle);
		});
		return reply;
	}

	/**
	 * The engine whose connection takes the scripts whose first key is {@code key}: by the key's hash
	 * tag, or the whole key when it has none, so that every script on one lock or one queue takes
	 * one lane. This engine when it has one lane.
	 */
	RedisEngine laneOf(String key) {
		if (lanes.size() == 1) {
			return this;
		}
		int open = key.indexOf('{');
		int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
		int hash;
		if (close > open + 1) {
			// The tag's String.hashCode, without a substring for every call.
			hash = 0;
			for (int i = open + 1; i < close; i++) {
				hash = 31 * hash + key.charAt(i);
			}
		}
		else {
			hash = key.hashCode();
		}
		return lanes.get(Math.floorMod(hash, lanes.size()));
	}

	private <T> CompletableFuture<T> evalHere(LuaScript called, ScriptOutputType type, String[] keys, String[] args,
			int hops) {
		boolean shifted = (firstLane != null) ? firstLane.clockShifted : clockShifted;
		LuaScript script = shifted ? called.shifted(namespace.clockOffsetKey()) : called;
		CompletableFuture<T> bySha = send(SentScript.bySha(script.sha1(), type, keys, args, calls),
				() -> commands.<T>evalsha(script.sha1(), type, keys, args));
		CommandReply<T> reply = new CommandReply<>(bySha);
		bySha.whenComplete((value, failure) -> {
			if (failure == null) {
				// The common case: nothing to keep for a second send.
				reply.complete(value);
			}
			else {
				answered(new Evaluation<>(script, type, keys, args, reply, 0, System.nanoTime(), hops), value, failure);
			}
		});
		return reply;
	}

	/**
	 * Sends a script call on this engine's connection; a reply type Warden does not read
	 * ({@code script} is {@code null}) goes out as Lettuce sends it.
	 */
	private <T> CompletableFuture<T> send(@Nullable SentScript<T> script,
			Supplier<? extends CompletionStage<T>> otherwise) {
		if (script == null) {
			return otherwise.get().toCompletableFuture();
		}
		try {
			commandConnection.dispatch(script);
		}
		catch (RuntimeException ex) {
			script.completeExceptionally(ex);
		}
		return script;
	}

	/**
	 * One script call, how often it was sent again to a busy slot, and how many redirects it
	 * followed on a Redis Cluster.
	 */
	private record Evaluation<T>(LuaScript script, ScriptOutputType type, String[] keys, String[] args,
			CommandReply<T> reply, int retries, long firstNanos, int hops) {

		Evaluation<T> again() {
			return new Evaluation<>(script, type, keys, args, reply, retries + 1, firstNanos, hops);
		}

	}

	private <T> void answered(Evaluation<T> call, @Nullable T value, @Nullable Throwable failure) {
		CommandReply<T> reply = call.reply();
		if (failure == null || reply.isDone()) {
			reply.settle(value, failure);
			return;
		}
		Throwable cause = unwrap(failure);
		RedisEngine clusterEngine = cluster;
		if (clusterEngine != null && redirected(cause)) {
			// This node does not serve the slot (any more): to the node a MOVED names, on its own
			// connection; an ASK (a slot being migrated) through the cluster connection, which sends
			// the ASKING that must precede the script.
			redirects.incrementAndGet();
			clusterEngine.topologyChanged();
			String movedTo = movedTo(cause);
			ClusterNodes nodes = clusterEngine.clusterNodes;
			CompletableFuture<T> routed = (movedTo != null && nodes != null && call.hops() < MAX_REDIRECTS)
					? clusterEngine.evalOn(nodes.at(movedTo), call.script(), call.type(), call.keys(), call.args(),
							call.hops() + 1)
					: clusterEngine.evalHere(call.script(), call.type(), call.keys(), call.args(), call.hops() + 1);
			reply.follow(routed);
			routed.whenComplete(reply::settle);
			return;
		}
		if (cause instanceof RedisNoScriptException) {
			resends.incrementAndGet();
			CompletableFuture<T> byText = send(
					SentScript.byText(call.script().source(), call.type(), call.keys(), call.args(), calls),
					() -> commands.<T>eval(call.script().source(), call.type(), call.keys(), call.args()));
			reply.follow(byText);
			byText.whenComplete((again, failed) -> answered(call, again, failed));
			return;
		}
		boolean readOnly = readOnly(cause);
		if (readOnly && follower != null) {
			follower.onReadOnly();
		}
		long backoffMillis = Math.min(MAX_SLOT_BACKOFF_MILLIS, 1L << Math.min(call.retries(), 6));
		long elapsed = System.nanoTime() - call.firstNanos();
		if ((slotBusy(cause) || readOnly) && elapsed + TimeUnit.MILLISECONDS.toNanos(backoffMillis) < commandTimeout.toNanos()) {
			scheduler.schedule(() -> {
				if (!reply.isDone()) {
					resends.incrementAndGet();
					CompletableFuture<T> resent = send(
							SentScript.bySha(call.script().sha1(), call.type(), call.keys(), call.args(), calls),
							() -> commands.<T>evalsha(call.script().sha1(), call.type(), call.keys(), call.args()));
					reply.follow(resent);
					resent.whenComplete((again, failed) -> answered(call.again(), again, failed));
				}
			}, backoffMillis, TimeUnit.MILLISECONDS);
			return;
		}
		reply.settle(value, failure);
	}

	/**
	 * Whether a script met a replica ({@code READONLY}, at its first write, so it wrote nothing): the
	 * connection is on a deposed master, and the script can be sent again once it has moved.
	 */
	private static boolean readOnly(Throwable cause) {
		String message = (cause instanceof RedisCommandExecutionException) ? cause.getMessage() : null;
		return message != null && message.contains("READONLY");
	}

	/** The {@code host:port} a {@code MOVED} answer names; {@code null} for another answer. */
	private static @Nullable String movedTo(Throwable cause) {
		String message = cause.getMessage();
		if (message == null || !message.startsWith("MOVED ")) {
			return null;
		}
		int space = message.lastIndexOf(' ');
		return (space > "MOVED ".length()) ? message.substring(space + 1).strip() : null;
	}

	/**
	 * Whether a Redis Cluster node sent a command to another node ({@code MOVED}, {@code ASK}): it did
	 * not run it.
	 */
	private static boolean redirected(Throwable cause) {
		String message = (cause instanceof RedisCommandExecutionException) ? cause.getMessage() : null;
		return message != null && (message.startsWith("MOVED ") || message.startsWith("ASK "));
	}

	/** Whether Redis refused to run a command because its slot was busy: nothing ran, it can be sent again. */
	private static boolean slotBusy(Throwable cause) {
		String message = (cause instanceof RedisCommandExecutionException) ? cause.getMessage() : null;
		return message != null && (message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN"));
	}

	/**
	 * Like {@link CompletableFuture#thenApply}, except that when the mapped future fails or is
	 * cancelled first (a caller's timeout), the command behind {@code reply} is cancelled too, so a
	 * command still buffered during a reconnect is never sent. A mapper that throws fails the mapped
	 * future with its exception.
	 * @param reply a command's reply, as returned by Lettuce or {@link #eval}
	 * @param mapper maps the reply
	 * @param <T> the reply type
	 * @param <U> the mapped type
	 * @return the mapped future
	 */
	public static <T, U> CompletableFuture<U> map(CompletableFuture<T> reply, Function<? super T, ? extends U> mapper) {
		CommandReply<U> mapped = new CommandReply<>(reply);
		reply.whenComplete((value, failure) -> {
			if (failure != null) {
				mapped.completeExceptionally(failure);
				return;
			}
			U result;
			try {
				result = mapper.apply(value);
			}
			catch (RuntimeException | Error ex) {
				mapped.completeExceptionally(ex);
				return;
			}
			mapped.complete(result);
		});
		return mapped;
	}

	/**
	 * Whether {@code failure} (or a cause of it) is a script call that failed because its connection
	 * closed after the call was written and before Redis answered: the script may or may not have
	 * run. Lettuce would have sent it again on the next connection; Warden fails it instead, and a
	 * caller for whom a second run is harmless may send it again itself.
	 * @param failure a failure, or {@code null}
	 * @return whether it is such a failure
	 */
	public static boolean closedBeforeReply(@Nullable Throwable failure) {
		return SentScript.closedBeforeReply(failure);
	}

	/**
	 * Like {@link #map}, with a say on both outcomes in one stage: a failure (which includes a
	 * cancellation) is passed to {@code onFailure} before the mapped future fails with it; a value is
	 * passed to {@code onValue}, and the mapped future completes with it once the stage that
	 * {@code onValue} returns (a command sent in reaction to the reply) is done, or at once when it
	 * returns {@code null}.
	 * @param reply a command's reply, as returned by Lettuce or {@link #eval}
	 * @param onValue acts on the reply; returns what to wait for, or {@code null}
	 * @param onFailure acts on a failure
	 * @param <T> the reply type
	 * @return the reply, once acted on
	 */
	public static <T> CompletableFuture<T> whenSettled(CompletableFuture<T> reply,
			Function<? super T, ? extends @Nullable CompletionStage<?>> onValue,
			Consumer<Throwable> onFailure) {
		CommandReply<T> settled = new CommandReply<>(reply);
		reply.whenComplete((value, failure) -> {
			if (failure != null) {
				onFailure.accept(failure);
				settled.completeExceptionally(failure);
				return;
			}
			CompletionStage<?> after;
			try {
				after = onValue.apply(value);
			}
			catch (RuntimeException | Error ex) {
				settled.completeExceptionally(ex);
				return;
			}
			if (after == null) {
				settled.complete(value);
			}
			else {
				after.whenComplete((ignored, failed) -> settled.complete(value));
			}
		});
		return settled;
	}

	/**
	 * Waits for a reply for at most the command timeout, without being interrupted (an interrupt is
	 * kept for the caller to act on), and turns failures into Warden exceptions.
	 * @param reply the pending reply
	 * @param action what was asked, for the exception message
	 * @param <T> the reply type
	 * @return the reply
	 * @throws RedisUnavailableException when Redis cannot be reached or does not answer in time
	 * @throws WardenException when Redis answers with an error
	 */
	public <T> T await(CompletionStage<T> reply, String action) {
		CompletableFuture<T> future = reply.toCompletableFuture();
		long deadline = System.nanoTime() + commandTimeout.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					throw translate(ex.getCause(), action);
				}
				catch (CancellationException ex) {
					// Lettuce cancels the commands it buffered for a connection it closes (a Redis
					// Cluster node no longer in the topology, a client shutting down): never sent.
					throw new RedisUnavailableException("Redis did not get " + action
							+ ": the connection it waited for was closed", ex);
				}
				catch (TimeoutException ex) {
					// A command still buffered while Lettuce reconnects must not run later.
					future.cancel(false);
					throw new RedisUnavailableException(
							"Redis did not answer " + action + " within " + commandTimeout.toMillis() + " ms", ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A key in the same Redis Cluster hash slot as {@code key}: {@code key}'s own hash tag when it
	 * has one, else the whole key as the tag, followed by {@code suffix}.
	 */
	public static String sibling(String key, String suffix) {
		int open = key.indexOf('{');
		boolean tagged = open >= 0 && key.indexOf('}', open + 2) > open;
		return (tagged ? key : "{" + key + "}") + suffix;
	}

	/** Turns a Lettuce failure into the matching Warden exception. */
	public static RuntimeException translate(Throwable failure, String action) {
		Throwable cause = unwrap(failure);
		if (cause instanceof WardenException wardenException) {
			return wardenException;
		}
		if (cause instanceof RedisConnectionException || cause instanceof RedisCommandTimeoutException
				|| cause instanceof IOException) {
			return new RedisUnavailableException("Redis unavailable for " + action + ": " + cause.getMessage(), cause);
		}
		if (cause instanceof RedisCommandExecutionException) {
			String message = String.valueOf(cause.getMessage());
			if (message.contains("OOM command not allowed")) {
				return new RedisOutOfMemoryException("Redis refused " + action + ": it is out of memory (used_memory "
						+ "reached maxmemory, and its maxmemory-policy evicts nothing to make room), so nothing was "
						+ "written. Free memory or raise maxmemory", cause);
			}
			if (message.contains("WRONGTYPE")) {
				return new WardenException("Redis rejected " + action + ": a key it uses holds another type of value "
						+ "(WRONGTYPE), so the name is taken by something else in this Redis. "
						+ "Use another name, or delete the key if it is left over", cause);
			}
			return new WardenException("Redis rejected " + action + ": " + message, cause);
		}
		if (cause instanceof io.lettuce.core.RedisException) {
			return new RedisUnavailableException("Redis unavailable for " + action + ": " + cause.getMessage(), cause);
		}
		if (cause instanceof RuntimeException runtimeException) {
			// Thrown by Warden's own reply handling (a non-owner unlock, for one): not Redis's doing.
			return runtimeException;
		}
		return new WardenException("Failed " + action + ": " + cause, cause);
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** Closes the connections this engine opened; the client stays open. */
	@Override
	public void close() {
		if (cluster != null) {
			// A node's engine: its connection is the cluster connection's.
			return;
		}
		if (firstLane != null) {
			// A lane's engine: the first lane's engine closes its connection.
			return;
		}
		scheduler.shutdownNow();
		try {
			pubSubConnection.close();
		}
		finally {
			lanes.forEach(lane -> lane.commandConnection.close());
		}
	}

}
