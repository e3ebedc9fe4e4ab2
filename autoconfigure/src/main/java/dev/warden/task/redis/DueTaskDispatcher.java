package dev.warden.task.redis;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.ChannelListener;
import dev.warden.redis.ChannelSubscriptions.Membership;
import dev.warden.redis.RedisEngine;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.Delivery;
import dev.warden.task.PayloadCodec;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskHandler;
import dev.warden.task.UnreadablePayloadException;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one queue on one client: claims due tasks as slots free up, runs their handlers, and
 * acknowledges or reschedules them.
 * <p>
 * It does not poll. After each claim, Redis says how long, to the microsecond, until the next task
 * is due (or the next in-flight deadline passes), and the dispatcher sleeps that long; a task
 * scheduled earlier than that is announced on the queue's channel and wakes it. A slow sweep
 * bounds every sleep, as a safety net for a missed message. A claim also takes the tasks due
 * within the claim-ahead window, each holding a handler slot until it starts when it is due; one
 * that is cancelled, rescheduled or replaced meanwhile is revoked on the channel and dropped. All
 * times are Redis's: the dispatcher only ever schedules relative delays that Redis computed, so
 * clients' clocks never matter.
 *
 * @param <T> the payload type
 */
final class DueTaskDispatcher<T> implements TaskConsumer, ChannelListener {

	private static final Logger logger = LoggerFactory.getLogger(DueTaskDispatcher.class);

	private static final int MAX_BATCH = 100;

	private static final long RETRY_AFTER_ERROR_MILLIS = 1000;

	/**
	 * A finished delivery waits at most this long, or the claim-ahead window if longer, for the next
	 * claim to carry its acknowledgement.
	 */
	private static final long ACKNOWLEDGE_WITH_CLAIM_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	/** How a message on the queue's channel that revokes a claim begins. */
	private static final String REVOKE = "revoke ";

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final TaskWorkers workers;

	private final PayloadCodec<T> codec;

	private final TaskHandler<T> handler;

	private final ConsumerOptions options;

	private final String consumerId;

	// The claim script's fixed arguments, built once: a busy consumer claims every millisecond.
	private final String visibilityTimeoutArg;

	private final String maxAttemptsArg;

	private final String claimAheadArg;

	private final long acknowledgeWithClaimNanos;

	private final long sweepMicros;

	private final Duration defaultGrace;

	private final Runnable onStop;

	// Guarded by this.
	private boolean running;

	private boolean claiming;

	private long wakeAfterClaimNanos = Long.MAX_VALUE;

	private @Nullable ScheduledFuture<?> wake;

	private long wakeAtNanos = Long.MAX_VALUE;

	// Deliveries whose handler runs or whose acknowledgement is under way.
	private int activeHandlers;

	// Ids and claim tokens of finished deliveries to acknowledge, in pairs.
	private final List<String> acknowledgements = new ArrayList<>();

	// Whether an acknowledgement call of its own is under way.
	private boolean acknowledging;

	// Whether a claim waits for a handler slot to free up (it runs when one does).
	private boolean awaitingSlot;

	private @Nullable Membership<DueTaskDispatcher<T>> subscription;

	// Tasks claimed ahead that wait for their due time, by id; each holds a handler slot. Whoever
	// takes a task out of it starts the task or drops it.
	private final Map<String, Waiting> waiting = new HashMap<>();

	// The subscription of a halted consumer, kept while tasks it claimed ahead wait: they can still
	// be revoked.
	private @Nullable Membership<DueTaskDispatcher<T>> closeWhenNoneWaits;

	DueTaskDispatcher(String queue, QueueKeys keys, RedisEngine engine, TaskWorkers workers, PayloadCodec<T> codec,
			TaskHandler<T> handler, ConsumerOptions options, String consumerId, Duration sweepInterval,
			Duration claimAhead, Duration defaultGrace, Runnable onStop) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.workers = workers;
		this.codec = codec;
		this.handler = handler;
		this.options = options;
		this.consumerId = consumerId;
		this.visibilityTimeoutArg = Long.toString(options.visibilityTimeout().toMillis());
		this.maxAttemptsArg = Integer.toString(options.maxAttempts());
		this.claimAheadArg = Long.toString(claimAhead.toMillis());
		this.acknowledgeWithClaimNanos = Math.max(ACKNOWLEDGE_WITH_CLAIM_NANOS, claimAhead.toNanos());
		this.sweepMicros = TimeUnit.NANOSECONDS.toMicros(sweepInterval.toNanos());
		this.defaultGrace = defaultGrace;
		this.onStop = onStop;
	}

	/**
	 * Subscribes to the queue's channel, then makes the first claim: a task scheduled before the
	 * subscription is confirmed is found by that claim, one scheduled after it is announced.
	 */
	void start() {
		Membership<DueTaskDispatcher<T>> joined = engine.subscriptions().join(keys.channel, () -> this);
		try {
			engine.await(joined.subscribed().copy(), "subscription to " + keys.channel);
		}
		catch (RuntimeException ex) {
			joined.close();
			throw ex;
		}
		synchronized (this) {
			running = true;
			subscription = joined;
		}
		claim();
	}

	@Override
	public String queue() {
		return queue;
	}

	/**
	 * A task was scheduled (or rescheduled) that is due in the message's microseconds; or a task
	 * claimed ahead was revoked.
	 */
	@Override
	public void onMessage(String message) {
		if (message.startsWith(REVOKE)) {
			revoked(message);
			return;
		}
		long delay;
		try {
			delay = Long.parseLong(message);
		}
		catch (NumberFormatException ex) {
			delay = 0;
		}
		wakeWithin(delay);
	}

	private synchronized void wakeWithin(long delayMicros) {
		if (!running) {
			return;
		}
		long at = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(Math.max(0, delayMicros));
		if (claiming) {
			// The claim under way may have read the queue before this task arrived.
			wakeAfterClaimNanos = Math.min(wakeAfterClaimNanos, at);
			return;
		}
		if (at < wakeAtNanos) {
			scheduleWake(at);
		}
	}

	private void scheduleWake(long atNanos) {
		if (wake != null) {
			wake.cancel(false);
		}
		wakeAtNanos = atNanos;
		wake = engine.scheduler().schedule(this::claim, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	private void claim() {
		int reserved;
		List<String> finished;
		synchronized (this) {
			if (!running || claiming) {
				return;
			}
			if (wake != null) {
				wake.cancel(false);
				wake = null;
			}
			wakeAtNanos = Long.MAX_VALUE;
			awaitingSlot = false;
			reserved = workers.reserve(MAX_BATCH);
			if (reserved == 0) {
				awaitingSlot = true;
				workers.whenSlotFree(this::claim);
				finished = acknowledgeAloneUnlessClaimingSoon();
			}
			else {
				claiming = true;
				wakeAfterClaimNanos = Long.MAX_VALUE;
				finished = takeAcknowledgements();
			}
		}
		if (reserved == 0) {
			sendAcknowledgements(finished);
			return;
		}
		claimScript(reserved, finished).whenComplete((reply, failure) -> claimed(reserved, finished, reply, failure));
	}

	/**
	 * Claims up to {@code limit} due tasks (none with 0), completing the {@code finished} deliveries
	 * (id, token pairs) first.
	 */
	private CompletableFuture<List<Object>> claimScript(int limit, List<String> finished) {
		String[] args = new String[6 + finished.size()];
		args[0] = Integer.toString(limit);
		args[1] = visibilityTimeoutArg;
		args[2] = consumerId;
		args[3] = maxAttemptsArg;
		args[4] = claimAheadArg;
		args[5] = Integer.toString(finished.size() / 2);
		for (int i = 0; i < finished.size(); i++) {
			args[6 + i] = finished.get(i);
		}
		try {
			return engine.eval(TaskScripts.CLAIM, ScriptOutputType.MULTI, keys.allAndDead, args);
		}
		catch (RuntimeException ex) {
			// Lettuce refuses commands at once on a closed connection.
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** The completion outcomes at the head of a claim's reply, one per finished delivery. */
	private static @Nullable List<Object> outcomes(@Nullable List<Object> reply, List<String> finished) {
		return (reply != null) ? reply.subList(3, Math.min(reply.size(), 3 + finished.size() / 2)) : null;
	}

	private void claimed(int reserved, List<String> finished, @Nullable List<Object> reply,
			@Nullable Throwable failure) {
		int claimed = 0;
		long wakeInMicros = TimeUnit.MILLISECONDS.toMicros(RETRY_AFTER_ERROR_MILLIS);
		int completions = finished.size() / 2;
		try {
			acknowledged(finished, outcomes(reply, finished), failure);
			if (failure != null) {
				logger.warn("Claiming due tasks of queue '{}' failed; trying again in {} ms", queue,
						RETRY_AFTER_ERROR_MILLIS, failure);
			}
			else if (reply != null) {
				wakeInMicros = (Long) reply.get(1);
				for (int i = 3 + completions; i + 4 < reply.size(); i += 5) {
					String id = (String) reply.get(i);
					String payload = (String) reply.get(i + 1);
					int attempt = ((Long) reply.get(i + 2)).intValue();
					String token = (String) reply.get(i + 3);
					long startInMicros = (Long) reply.get(i + 4);
					claimed++;
					accept(id, payload, attempt, token, startInMicros);
				}
			}
		}
		finally {
			workers.release(reserved - claimed);
		}
		List<String> alone;
		Membership<DueTaskDispatcher<T>> toClose;
		synchronized (this) {
			claiming = false;
			toClose = subscriptionToClose();
			if (running) {
				// Zero when more tasks are due than this claim could take.
				long next = (wakeInMicros < 0) ? sweepMicros : Math.min(wakeInMicros, sweepMicros);
				long at = Math.min(System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(next), wakeAfterClaimNanos);
				wakeAfterClaimNanos = Long.MAX_VALUE;
				scheduleWake(at);
			}
			// Deliveries that finished while this claim was under way: with the next claim if it
			// comes soon, else now.
			alone = acknowledgeAloneUnlessClaimingSoon();
		}
		if (toClose != null) {
			toClose.close();
		}
		sendAcknowledgements(alone);
	}

	/**
	 * Runs a claimed task on its reserved slot: at once, or when it is due if it was claimed ahead,
	 * unless it is revoked first. A task of that id still waiting under an earlier claim ahead, whose
	 * revocation message was missed, is dropped: Redis holds only the new claim.
	 */
	private void accept(String id, String payload, int attempt, String token, long startInMicros) {
		Waiting task = (startInMicros > 0) ? new Waiting(token) : null;
		Waiting superseded;
		synchronized (this) {
			activeHandlers++;
			if (task == null) {
				superseded = waiting.remove(id);
			}
			else {
				superseded = waiting.put(id, task);
				task.start = engine.scheduler().schedule(() -> {
					if (stopWaiting(id, task)) {
						workers.execute(() -> deliver(id, payload, attempt, token));
					}
				}, startInMicros, TimeUnit.MICROSECONDS);
			}
		}
		if (superseded != null) {
			dropRevoked(id, superseded);
		}
		if (task == null) {
			workers.execute(() -> deliver(id, payload, attempt, token));
		}
	}

	/** A message {@code revoke <token length> <token><id>}: drops that task if it still waits. */
	private void revoked(String message) {
		int space = message.indexOf(' ', REVOKE.length());
		String token;
		String id;
		try {
			int tokenEnd = space + 1 + Integer.parseInt(message.substring(REVOKE.length(), space));
			token = message.substring(space + 1, tokenEnd);
			id = message.substring(tokenEnd);
		}
		catch (RuntimeException ex) {
			logger.warn("Ignoring a malformed message on the channel of queue '{}': {}", queue, message);
			return;
		}
		Waiting task;
		synchronized (this) {
			task = waiting.get(id);
		}
		if (task != null && task.token.equals(token) && stopWaiting(id, task)) {
			dropRevoked(id, task);
		}
	}

	/**
	 * Ends the delivery of a task claimed ahead that was revoked before it started, once it is no
	 * longer among the waiting ones (so its timer, if it fires, does not start it).
	 */
	private void dropRevoked(String id, Waiting task) {
		ScheduledFuture<?> start = task.start;
		if (start != null) {
			start.cancel(false);
		}
		logger.debug("Task '{}' of queue '{}', claimed ahead, was revoked before it started", id, queue);
		workers.release(1);
		deliveriesDone(1);
	}

	/**
	 * Takes a task out of the waiting ones, which makes the caller the one that starts or drops it;
	 * false when it is not there (it started or was revoked). A halted consumer closes its
	 * subscription once none waits.
	 */
	private boolean stopWaiting(String id, Waiting task) {
		Membership<DueTaskDispatcher<T>> toClose;
		synchronized (this) {
			if (waiting.get(id) != task) {
				return false;
			}
			waiting.remove(id);
			toClose = subscriptionToClose();
		}
		if (toClose != null) {
			toClose.close();
		}
		return true;
	}

	/**
	 * Called holding this monitor: the subscription of a halted consumer, to close now that no task
	 * it claimed ahead waits and no claim that may add one is under way.
	 */
	private @Nullable Membership<DueTaskDispatcher<T>> subscriptionToClose() {
		if (closeWhenNoneWaits == null || !waiting.isEmpty() || claiming) {
			return null;
		}
		Membership<DueTaskDispatcher<T>> toClose = closeWhenNoneWaits;
		closeWhenNoneWaits = null;
		return toClose;
	}

	private void deliver(String id, String payload, int attempt, String token) {
		boolean succeeded = false;
		try {
			T value;
			try {
				value = codec.decode(payload);
			}
			catch (UnreadablePayloadException ex) {
				fail(id, token, -1, "Unreadable payload: " + ex.getMessage());
				return;
			}
			try {
				handler.handle(new Delivery<>(queue, id, value, attempt));
			}
			catch (UnreadablePayloadException ex) {
				fail(id, token, -1, "Unreadable payload: " + ex.getMessage());
				return;
			}
			catch (Exception ex) {
				logger.debug("Task '{}' of queue '{}' failed on attempt {}", id, queue, attempt, ex);
				fail(id, token, options.backoffAfter(attempt).toMillis(), describe(ex));
				return;
			}
			succeeded = true;
			acknowledge(id, token);
		}
		catch (RuntimeException ex) {
			// Redis unreachable for the outcome: the task stays in flight and is delivered again.
			logger.warn("Could not record the outcome of task '{}' of queue '{}'; it will be delivered again after "
					+ "its visibility timeout", id, queue, ex);
		}
		finally {
			if (!succeeded) {
				// A delivery that succeeded ends when its acknowledgement is answered.
				deliveriesDone(1);
			}
			// The handler is done: its slot may run another task while the acknowledgement is sent.
			workers.release(1);
		}
	}

	/**
	 * Acknowledges a task whose handler succeeded, without waiting. The acknowledgement goes with
	 * this consumer's next claim when one is under way, due within 2 ms, or waiting for a slot (the
	 * caller frees its slot next, which runs that claim; a claim that still finds no slot sends the
	 * acknowledgements alone); otherwise it is sent at once, or, when an acknowledgement is under
	 * way, with the others that finish meanwhile in one call when that one is answered. The delivery
	 * counts as running until its acknowledgement is answered.
	 */
	private void acknowledge(String id, String token) {
		List<String> batch;
		synchronized (this) {
			acknowledgements.add(id);
			acknowledgements.add(token);
			batch = (running && awaitingSlot) ? List.of() : acknowledgeAloneUnlessClaimingSoon();
		}
		sendAcknowledgements(batch);
	}

	/**
	 * Called holding this monitor: the acknowledgements to send in a call of their own now; none
	 * when such a call is under way (its answer sends the rest) or a claim will carry them.
	 */
	private List<String> acknowledgeAloneUnlessClaimingSoon() {
		if (acknowledgements.isEmpty() || acknowledging) {
			return List.of();
		}
		if (running && (claiming || (wake != null && wakeAtNanos - System.nanoTime() <= acknowledgeWithClaimNanos))) {
			return List.of();
		}
		acknowledging = true;
		return takeAcknowledgements();
	}

	// Called holding this monitor.
	private List<String> takeAcknowledgements() {
		if (acknowledgements.isEmpty()) {
			return List.of();
		}
		List<String> batch = new ArrayList<>(acknowledgements);
		acknowledgements.clear();
		return batch;
	}

	/** Completes finished deliveries with a claim of nothing, the only copy of that step in Redis. */
	private void sendAcknowledgements(List<String> batch) {
		if (batch.isEmpty()) {
			return;
		}
		engine.withTimeout(claimScript(0, batch), "acknowledgement of " + (batch.size() / 2) + " task(s)")
			.whenComplete((reply, failure) -> {
				acknowledged(batch, outcomes(reply, batch), failure);
				List<String> next;
				synchronized (this) {
					acknowledging = false;
					next = acknowledgeAloneUnlessClaimingSoon();
				}
				sendAcknowledgements(next);
			});
	}

	/** Logs the deliveries whose completion was not recorded, and ends them all. */
	private void acknowledged(List<String> batch, @Nullable List<Object> outcomes, @Nullable Throwable failure) {
		if (batch.isEmpty()) {
			return;
		}
		for (int i = 0; i + 1 < batch.size(); i += 2) {
			String id = batch.get(i);
			if (failure != null) {
				logger.warn("Could not record the completion of task '{}' of queue '{}'; it will be delivered "
						+ "again after its visibility timeout", id, queue, failure);
			}
			else if (outcomes == null || i / 2 >= outcomes.size() || !Long.valueOf(1L).equals(outcomes.get(i / 2))) {
				logger.info("Task '{}' of queue '{}' was cancelled, replaced or redelivered while it ran; "
						+ "its completion was not recorded", id, queue);
			}
		}
		deliveriesDone(batch.size() / 2);
	}

	private void deliveriesDone(int count) {
		synchronized (this) {
			activeHandlers -= count;
			notifyAll();
		}
	}

	private void fail(String id, String token, long backoffMillis, String error) {
		Long outcome = engine.await(engine.eval(TaskScripts.FAIL, ScriptOutputType.INTEGER, keys.allAndDead, id, token,
				Long.toString(backoffMillis), error, Integer.toString(options.maxAttempts()), keys.channel),
				"failure of task '" + id + "'");
		if (outcome != null && outcome == 2L) {
			logger.warn("Task '{}' of queue '{}' moved to the dead letters: {}", id, queue, error);
		}
	}

	private static String describe(Exception ex) {
		StringWriter trace = new StringWriter();
		ex.printStackTrace(new PrintWriter(trace));
		String text = trace.toString();
		// Enough to diagnose; a dead letter is no place for a whole stack.
		return (text.length() > 4000) ? text.substring(0, 4000) : text;
	}

	@Override
	public boolean stop(Duration grace) {
		halt();
		return awaitIdle(System.nanoTime() + grace.toNanos(), grace);
	}

	/** Stops claiming: no task is claimed by this consumer after this returns. */
	void halt() {
		Membership<DueTaskDispatcher<T>> joined;
		List<String> finished;
		synchronized (this) {
			if (!running) {
				return;
			}
			running = false;
			awaitingSlot = false;
			if (wake != null) {
				wake.cancel(false);
				wake = null;
			}
			joined = subscription;
			subscription = null;
			if (!waiting.isEmpty() || claiming) {
				// Tasks claimed ahead, by a claim under way too, still start when due, and can still
				// be revoked until then.
				closeWhenNoneWaits = joined;
				joined = null;
			}
			// No claim comes any more: acknowledgements waiting for one go now.
			finished = acknowledgeAloneUnlessClaimingSoon();
		}
		sendAcknowledgements(finished);
		if (joined != null) {
			joined.close();
		}
		onStop.run();
	}

	/** Waits until no handler of this consumer runs, or the deadline. */
	boolean awaitIdle(long deadlineNanos, Duration grace) {
		synchronized (this) {
			while (activeHandlers > 0) {
				long remaining = deadlineNanos - System.nanoTime();
				if (remaining <= 0) {
					logger.warn("{} task(s) of queue '{}' still running after the {} grace period; they stay in "
							+ "flight and will be delivered again", activeHandlers, queue, grace);
					return false;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this, remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
		}
		return true;
	}

	@Override
	public void close() {
		stop(defaultGrace);
	}

	/** A task claimed ahead, waiting for its due time. */
	private static final class Waiting {

		final String token;

		// Set right after construction, under the dispatcher's monitor.
		@Nullable ScheduledFuture<?> start;

		Waiting(String token) {
			this.token = token;
		}

	}

}
