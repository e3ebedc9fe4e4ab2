package dev.warden.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * {@code WAIT} shared by the writes that need it, as a database shares one flush among the commits
 * that arrive while it runs. {@code WAIT} blocks the connection it is sent on, and Warden's callers
 * share one command connection, so one {@code WAIT} per write would queue every other command
 * behind a replica round trip each time. Instead, at most one {@code WAIT} per replica count and
 * timeout is in flight: a write that asks while one is in flight joins the next, sent as soon as
 * the current one returns. Commands on a connection run in order, so a {@code WAIT} sent after a
 * write was sent covers that write: a caller may ask right after sending its write, without waiting
 * for its reply, as long as the write was not sent again meanwhile ({@link RedisEngine#resends()}).
 * A write whose connection was lost before its {@code WAIT} was answered counts as acknowledged by
 * none ({@link RedisEngine#disconnects()}): Lettuce sends unanswered commands again on the new
 * connection, which may lead to another master.
 * <p>
 * On a Redis Cluster each master's connection has a barrier of its own (that of its engine,
 * {@link RedisEngine#writeReplicated}): a {@code WAIT} counts only the writes sent on its connection,
 * and that master's replicas. A write the node redirected to another ({@code MOVED}, {@code ASK};
 * {@link RedisEngine#redirects()}) counts as acknowledged by none, and so does every write whose
 * {@code WAIT} the node refused as a replica (a fail-over demoted it); both have the cluster's
 * topology read again, so that the next writes go to the master that serves their slot now.
 */
public final class ReplicationBarrier {

	private final RedisEngine engine;

	private final Object monitor = new Object();

	/** The callers waiting for the next {@code WAIT} of each replica count and timeout. */
	private final Map<Request, List<CompletableFuture<Long>>> next = new HashMap<>();

	/** The replica counts and timeouts with a {@code WAIT} in flight. */
	private final Map<Request, Boolean> inFlight = new HashMap<>();

	ReplicationBarrier(RedisEngine engine) {
		this.engine = engine;
	}

	private record Request(int replicas, long timeoutMillis) {
	}

	/**
	 * Sends a write, and the {@code WAIT} for it right behind, so that the replicas' acknowledgement
	 * costs no second round trip.
	 * @param write sends the write
	 * @param replicas how many replicas must have it
	 * @param timeoutMillis how long Redis may wait for them
	 * @param <T> the write's reply type
	 * @return the write's reply, and its acknowledgement when asked for
	 */
	public <T> ReplicatedWrite<T> write(Supplier<CompletableFuture<T>> write, int replicas, long timeoutMillis) {
		long resends = engine.resends();
		long disconnects = engine.disconnects();
		long redirects = engine.redirects();
		CompletableFuture<T> reply = write.get();
		CompletableFuture<Long> pipelined = await(replicas, timeoutMillis);
		return new ReplicatedWrite<>(reply, () -> {
			// A write sent again before its reply (NOSCRIPT, a busy slot) went behind that WAIT: it needs one of its own.
			CompletableFuture<Long> acknowledged = (engine.resends() == resends) ? pipelined : await(replicas, timeoutMillis);
			// After a lost connection the WAIT may have been answered by another master (a fail-over), whose
			// replicas never saw the write: no replica is known to have it. Nor of a write a cluster node
			// redirected: it ran on another node than the one the WAIT was sent to.
			return acknowledged.thenApply(
					count -> (engine.disconnects() == disconnects && engine.redirects() == redirects) ? count : 0L);
		});
	}

	/**
	 * A write sent with {@link #write}.
	 *
	 * @param reply the write's reply
	 * @param acknowledgement how many replicas acknowledged it; to ask once the reply is in
	 * @param <T> the reply type
	 */
	public record ReplicatedWrite<T>(CompletableFuture<T> reply, Supplier<CompletableFuture<Long>> acknowledgement) {

		/** How many replicas acknowledged the write: ask once its reply is in. */
		public CompletableFuture<Long> acknowledged() {
			return acknowledgement.get();
		}

	}

	/**
	 * Waits until {@code replicas} replicas have every write this client's command connection sent
	 * before the call, or {@code timeoutMillis} passed. The {@code WAIT} is sent at once, or as soon
	 * as the one in flight returns.
	 * @param replicas how many replicas
	 * @param timeoutMillis how long Redis may wait for them
	 * @return completes with how many replicas acknowledged (Redis's {@code WAIT} answer)
	 */
	public CompletableFuture<Long> await(int replicas, long timeoutMillis) {
		Request request = new Request(replicas, timeoutMillis);
		CompletableFuture<Long> acknowledged = new CompletableFuture<>();
		List<CompletableFuture<Long>> toSend = null;
		synchronized (monitor) {
			next.computeIfAbsent(request, r -> new ArrayList<>()).add(acknowledged);
			if (inFlight.putIfAbsent(request, Boolean.TRUE) == null) {
				toSend = next.remove(request);
			}
		}
		if (toSend != null) {
			send(request, toSend);
		}
		return acknowledged;
	}

	private void send(Request request, List<CompletableFuture<Long>> waiters) {
		CompletableFuture<Long> reply;
		try {
			reply = engine.commands().waitForReplication(request.replicas(), request.timeoutMillis()).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			// Lettuce refuses commands at once on a closed connection.
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((answer, error) -> {
			Long count = answer;
			Throwable failure = error;
			if (failure != null && engine.isClusterNode() && refused(failure)) {
				// A cluster node that answers WAIT with an error is a replica now (a fail-over demoted it):
				// none of its replicas is known to have the writes.
				engine.topologyChanged();
				count = 0L;
				failure = null;
			}
			for (CompletableFuture<Long> waiter : waiters) {
				if (failure != null) {
					waiter.completeExceptionally(failure);
				}
				else {
					waiter.complete(count);
				}
			}
			List<CompletableFuture<Long>> following;
			synchronized (monitor) {
				following = next.remove(request);
				if (following == null) {
					inFlight.remove(request);
				}
			}
			if (following != null) {
				send(request, following);
			}
		});
	}

	/** Whether Redis answered with an error (not a lost connection or a timeout). */
	private static boolean refused(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause instanceof RedisCommandExecutionException;
	}

}
