package dev.warden.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

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
		CompletableFuture<T> reply = write.get();
		CompletableFuture<Long> pipelined = await(replicas, timeoutMillis);
		return new ReplicatedWrite<>(reply, () -> {
			// A write sent again before its reply (NOSCRIPT, a busy slot) went behind that WAIT: it needs one of its own.
			CompletableFuture<Long> acknowledged = (engine.resends() == resends) ? pipelined : await(replicas, timeoutMillis);
			// After a lost connection the WAIT may have been answered by another master (a fail-over), whose
			// replicas never saw the write: no replica is known to have it.
			return acknowledged.thenApply(count -> (engine.disconnects() == disconnects) ? count : 0L);
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
		reply.whenComplete((count, failure) -> {
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

}
