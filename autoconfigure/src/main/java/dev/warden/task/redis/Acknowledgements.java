package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer's finished deliveries waiting to be acknowledged, as id, claim token pairs, and
 * their sending. They go with the consumer's next claim when one comes soon, otherwise in a call of
 * their own (a claim of nothing); while such a call is under way, those that finish meanwhile wait
 * for its answer and then go together. A delivery ends when its acknowledgement is answered.
 * <p>
 * Guarded by its consumer's monitor, but {@link #acknowledge}, {@link #send} and {@link #ended}, called
 * without it.
 */
final class Acknowledgements {

	private static final Logger logger = LoggerFactory.getLogger(Acknowledgements.class);

	private final String queue;

	private final RedisEngine engine;

	private final ClaimCall claims;

	private final ActiveDeliveries deliveries;

	private final Object monitor;

	private final BooleanSupplier claimSoon;

	private final BooleanSupplier claimWaitsForSlot;

	private final List<String> pending = new ArrayList<>();

	// Whether a call of their own is under way.
	private boolean sending;

	/**
	 * @param queue the queue
	 * @param engine the client's engine
	 * @param claims the consumer's claim call, which carries acknowledgements
	 * @param deliveries the consumer's deliveries under way
	 * @param monitor the consumer's monitor
	 * @param claimSoon whether a claim is under way or comes soon, asked holding the monitor
	 * @param claimWaitsForSlot whether a claim waits for a handler slot to free up, asked holding
	 * the monitor
	 */
	Acknowledgements(String queue, RedisEngine engine, ClaimCall claims, ActiveDeliveries deliveries, Object monitor,
			BooleanSupplier claimSoon, BooleanSupplier claimWaitsForSlot) {
		this.queue = queue;
		this.engine = engine;
		this.claims = claims;
		this.deliveries = deliveries;
		this.monitor = monitor;
		this.claimSoon = claimSoon;
		this.claimWaitsForSlot = claimWaitsForSlot;
	}

	/**
	 * Acknowledges a task whose handler succeeded, without waiting; called without the monitor. The
	 * acknowledgement goes with the consumer's next claim when one is under way, due soon, or waiting
	 * for a slot (the caller frees its slot next, which runs that claim; a claim that still finds no
	 * slot sends the acknowledgements alone); otherwise it is sent at once, or, when an
	 * acknowledgement is under way, with the others that finish meanwhile in one call when that one
	 * is answered. The delivery counts as running until its acknowledgement is answered.
	 */
	void acknowledge(String id, String token) {
		List<String> batch;
		synchronized (monitor) {
			add(id, token);
			batch = claimWaitsForSlot.getAsBoolean() ? List.of() : takeToSendAlone();
		}
		send(batch);
	}

	void add(String id, String token) {
		pending.add(id);
		pending.add(token);
	}

	/** All pending acknowledgements, for a claim to carry. */
	List<String> takeAll() {
		if (pending.isEmpty()) {
			return List.of();
		}
		List<String> batch = new ArrayList<>(pending);
		pending.clear();
		return batch;
	}

	/**
	 * The acknowledgements to send in a call of their own now: none when such a call is under way
	 * (its answer sends the rest) or a claim will carry them.
	 */
	List<String> takeToSendAlone() {
		if (pending.isEmpty() || sending || claimSoon.getAsBoolean()) {
			return List.of();
		}
		sending = true;
		return takeAll();
	}

	/**
	 * Sends a batch taken by {@link #takeToSendAlone} in a call of its own; once it is answered, the
	 * acknowledgements that came meanwhile follow unless a claim will carry them. Called without the
	 * monitor.
	 */
	void send(List<String> batch) {
		if (batch.isEmpty()) {
			return;
		}
		engine.withTimeout(claims.send(0, batch), "acknowledgement of " + (batch.size() / 2) + " task(s)")
			.whenComplete((reply, failure) -> {
				ended(batch, ClaimCall.outcomes(reply, batch), failure);
				List<String> next;
				synchronized (monitor) {
					sending = false;
					next = takeToSendAlone();
				}
				send(next);
			});
	}

	/**
	 * Ends the deliveries of an answered batch, logging those whose completion was not recorded.
	 * Called without the monitor.
	 */
	void ended(List<String> batch, @Nullable List<Object> outcomes, @Nullable Throwable failure) {
		if (!batch.isEmpty()) {
			logUnrecorded(batch, outcomes, failure);
			deliveries.end(batch.size() / 2);
		}
	}

	/**
	 * Logs the deliveries of a sent batch whose completion was not recorded: all of them when the
	 * call failed (as not confirmed: a call whose reply was lost may have run), else those whose outcome is not 1 (cancelled, replaced or redelivered meanwhile).
	 */
	private void logUnrecorded(List<String> batch, @Nullable List<Object> outcomes, @Nullable Throwable failure) {
		for (int i = 0; i + 1 < batch.size(); i += 2) {
			String id = batch.get(i);
			if (failure != null) {
				// A call that failed may still have run (its reply lost, or timed out): say both.
				logger.warn("Could not confirm the completion of task '{}' of queue '{}': unless Redis recorded it "
						+ "before the failure, the task is delivered again after its visibility timeout", id, queue,
						failure);
			}
			else if (outcomes == null || i / 2 >= outcomes.size() || !Long.valueOf(1L).equals(outcomes.get(i / 2))) {
				logger.info("Task '{}' of queue '{}' was cancelled, replaced or redelivered while it ran; "
						+ "its completion was not recorded", id, queue);
			}
		}
	}

}
