package dev.warden.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A loopback TCP proxy in front of one Redis, for network faults between a client and Redis: a
 * blackhole (connections stay open, nothing goes through until it heals, as on a network that
 * queues and retransmits), added latency, a reset of every connection, and a reply lost on its way
 * back (the request reaches Redis, which executes it; the connection is reset before the reply
 * reaches the client).
 * <p>
 * Each accepted connection gets its own connection to Redis and two daemon threads that copy
 * bytes, one per direction; they end when either side closes. Closing the proxy closes everything.
 */
public final class TcpProxy implements AutoCloseable {

	private static final int BUFFER = 16 * 1024;

	private final ServerSocket server;

	private volatile InetSocketAddress upstream;

	private final List<Link> links = new CopyOnWriteArrayList<>();

	private volatile boolean blackhole;

	private volatile long latencyNanos;

	private final AtomicBoolean loseNextReply = new AtomicBoolean();

	private final AtomicBoolean dropNextReply = new AtomicBoolean();

	/** The command whose reply {@link #dropNextReply(String)} drops; empty for any. */
	private volatile String dropReplyOf = "";

	private final AtomicBoolean cutNextReply = new AtomicBoolean();

	/** What to do with the replies of the next requests naming {@link #dropRepliesOf}: drop (true) or pass. */
	private final java.util.Queue<Boolean> dropPattern = new java.util.concurrent.ConcurrentLinkedQueue<>();

	private volatile String dropRepliesOf = "";

	private TcpProxy(InetSocketAddress upstream) throws IOException {
		this.upstream = upstream;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy in front of {@code node}.
	 * @param node the Redis behind the proxy
	 * @return the running proxy
	 */
	public static TcpProxy start(RedisNode node) {
		try {
			return new TcpProxy(new InetSocketAddress(node.host(), node.port()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start a proxy in front of " + node, ex);
		}
	}

	/** The proxy's host, where clients connect. */
	public String host() {
		return server.getInetAddress().getHostAddress();
	}

	/** The proxy's port, where clients connect. */
	public int port() {
		return server.getLocalPort();
	}

	/**
	 * Lets nothing through, in either direction, while the connections stay open: what a client
	 * sees when Redis or the network goes silent. Bytes sent meanwhile are held, in order, and go
	 * through when it heals.
	 */
	public void blackhole() {
		blackhole = true;
	}

	/** Ends a blackhole and added latency: bytes go through again, at once. */
	public void heal() {
		synchronized (this) {
			blackhole = false;
			notifyAll();
		}
		latencyNanos = 0;
	}

	/** Holds a chunk while the blackhole lasts; false when the proxy closed meanwhile. */
	private synchronized boolean awaitOpen(Link link) throws InterruptedException {
		while (blackhole && !link.isClosed() && !server.isClosed()) {
			wait(50);
		}
		return !link.isClosed();
	}

	/**
	 * Delays every chunk of bytes, in both directions, by {@code millis}.
	 * @param millis the added latency
	 */
	public void latency(long millis) {
		latencyNanos = TimeUnit.MILLISECONDS.toNanos(millis);
	}

	/**
	 * Loses the next reply: the next request any client sends reaches Redis, and when Redis's
	 * reply comes back, that connection is reset instead of passing it on. The client sees its
	 * connection reset with the command sent, not knowing whether Redis executed it (it did).
	 */
	public void loseNextReply() {
		loseNextReply.set(true);
	}

	/**
	 * Drops the next reply: the next request any client sends reaches Redis, and when Redis's reply
	 * comes back, that connection is closed normally (a FIN, as {@code CLIENT KILL}, an idle
	 * {@code timeout} or a proxy closes it) instead of passing it on. Redis executed the request; a
	 * client that sends unanswered commands again after reconnecting runs it twice.
	 */
	public void dropNextReply() {
		dropNextReply("");
	}

	/**
	 * Like {@link #dropNextReply()}, for the next request that names {@code command} (as Redis's
	 * protocol spells it, e.g. {@code EVALSHA}): other requests, a client's own background ones
	 * included, pass.
	 */
	public void dropNextReply(String command) {
		dropReplyOf = command;
		dropNextReply.set(true);
	}

	/**
	 * Like {@link #dropNextReply(String)}, for a sequence of requests naming {@code command}: the
	 * reply to the n-th is dropped when {@code drops[n]} is true, and passed on otherwise; the
	 * requests after the sequence pass.
	 * @param command as Redis's protocol spells it, e.g. {@code EVALSHA}
	 * @param drops per request, in order: whether its reply is dropped
	 */
	public void dropReplies(String command, boolean... drops) {
		dropPattern.clear();
		dropRepliesOf = command;
		for (boolean drop : drops) {
			dropPattern.add(drop);
		}
	}

	/**
	 * Cuts the next reply in the middle: the next request any client sends reaches Redis, and of
	 * Redis's reply only the first half goes back before the connection is reset.
	 */
	public void cutNextReply() {
		cutNextReply.set(true);
	}

	/**
	 * Sends the connections accepted from now on to {@code node}; those open stay where they are
	 * (reset them to move their clients): a fail-over behind a fixed address.
	 * @param node the Redis behind the proxy from now on
	 */
	public void target(RedisNode node) {
		upstream = new InetSocketAddress(node.host(), node.port());
	}

	/** Resets every open connection (RST, as a crashed peer or a middlebox would). */
	public void resetAll() {
		for (Link link : links) {
			link.reset();
		}
	}

	/** How many client connections are open through the proxy. */
	public int openConnections() {
		links.removeIf(Link::isClosed);
		return links.size();
	}

	@Override
	public void close() {
		try {
			server.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
		resetAll();
		links.clear();
		synchronized (this) {
			notifyAll();
		}
	}

	private void accept() {
		while (!server.isClosed()) {
			Socket client;
			try {
				client = server.accept();
			}
			catch (IOException ex) {
				return;
			}
			try {
				Socket redis = new Socket();
				redis.connect(upstream, 5_000);
				Link link = new Link(client, redis);
				links.add(link);
				link.start();
			}
			catch (IOException ex) {
				closeQuietly(client);
			}
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing left to do.
		}
	}

	/** One client connection and its connection to Redis. */
	private final class Link {

		private final Socket client;

		private final Socket redis;

		private final AtomicBoolean replyToLose = new AtomicBoolean();

		private final AtomicBoolean replyToCut = new AtomicBoolean();

		private final AtomicBoolean replyToDrop = new AtomicBoolean();

		private volatile boolean closed;

		Link(Socket client, Socket redis) {
			this.client = client;
			this.redis = redis;
		}

		void start() {
			Thread requests = new Thread(() -> pump(client, redis, true), "tcp-proxy-requests-" + client.getPort());
			Thread replies = new Thread(() -> pump(redis, client, false), "tcp-proxy-replies-" + client.getPort());
			requests.setDaemon(true);
			replies.setDaemon(true);
			requests.start();
			replies.start();
		}

		boolean isClosed() {
			return closed;
		}

		/** Copies until either side closes; each chunk passes the proxy's current faults. */
		private void pump(Socket from, Socket to, boolean towardsRedis) {
			byte[] buffer = new byte[BUFFER];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (!towardsRedis && replyToLose.compareAndSet(true, false)) {
						reset();
						return;
					}
					if (!towardsRedis && replyToDrop.compareAndSet(true, false)) {
						close();
						return;
					}
					if (!towardsRedis && replyToCut.compareAndSet(true, false)) {
						out.write(buffer, 0, Math.max(1, read / 2));
						out.flush();
						reset();
						return;
					}
					if (!awaitOpen(this)) {
						return;
					}
					long delay = latencyNanos;
					if (delay > 0) {
						TimeUnit.NANOSECONDS.sleep(delay);
					}
					if (towardsRedis && loseNextReply.compareAndSet(true, false)) {
						replyToLose.set(true);
					}
					if (towardsRedis && names(buffer, read, dropReplyOf) && dropNextReply.compareAndSet(true, false)) {
						replyToDrop.set(true);
					}
					if (towardsRedis && !dropRepliesOf.isEmpty() && names(buffer, read, dropRepliesOf)) {
						Boolean drop = dropPattern.poll();
						if (Boolean.TRUE.equals(drop)) {
							replyToDrop.set(true);
						}
					}
					if (towardsRedis && cutNextReply.compareAndSet(true, false)) {
						replyToCut.set(true);
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// The other side closed or was reset.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				close();
			}
		}

		/** Closes both sockets with an RST rather than a FIN. */
		void reset() {
			try {
				client.setSoLinger(true, 0);
				redis.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// Closed already.
			}
			close();
		}

		private void close() {
			closed = true;
			closeQuietly(client);
			closeQuietly(redis);
		}

	}

	/** Whether the first {@code length} bytes of {@code request} hold {@code command} ({@code ""}: always). */
	private static boolean names(byte[] request, int length, String command) {
		return command.isEmpty()
				|| new String(request, 0, length, StandardCharsets.ISO_8859_1).contains(command);
	}

}
