package dev.warden.task.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.ChannelListener;
import dev.warden.redis.ChannelSubscriptions.Membership;
import dev.warden.redis.RedisEngine;
import dev.warden.task.TaskConsumer;
import dev.warden.task.redis.ClaimCall.ClaimedTask;
import dev.warden.task.redis.ClaimedAhead.Revocation;
import dev.warden.task.redis.ClaimedAhead.Waiting;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one queue on one client: claims due tasks as handler slots free up, has them run, and
 * acknowledges them. While handlers are short, a claim also takes tasks for the slots they will free
 * during its round trip ({@link TaskWorkers}), so that a backlog drains in claims of several times the
 * concurrency rather than one round trip per handler's worth.
 * <p>
 * It does not poll. After each claim, Redis says how long, to the microsecond, until the next task
 * is due (or the next in-flight deadline passes), and the dispatcher sleeps that long
 * ({@link WakeTimer}); a task scheduled earlier than that is announced on the queue's channel and
 * wakes it. A slow sweep bounds every sleep, as a safety net for a missed message. A claim also
 * takes the tasks due within the claim-ahead window, each holding a handler slot until it starts
 * when it is due; one that is cancelled, rescheduled or replaced meanwhile is revoked on the
 * channel and dropped ({@link ClaimedAhead}). Handlers run on the client's {@link TaskWorkers}
 * ({@link TaskRun}); their acknowledgements ride on the next claim when it comes soon
 * ({@link Acknowledgements}). When it stops, the tasks it claimed ahead go back to the queue, for
 * another instance to run when they are due. All times are Redis's: the dispatcher only ever schedules relative
 * delays that Redis computed, so clients' clocks never matter.
 * <p>
 * One monitor, this object's, guards all of its state, that of its helpers included, but the count of
 * deliveries under way ({@link ActiveDeliveries}), which shutdown waits on.
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

	private final String queue;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final ClaimCall claims;

	private final ClaimExtension extension;

	private final TaskWorkers workers;

	private final long acknowledgeWithClaimNanos;

	private final Duration defaultGrace;

	private final Runnable onStop;

	private final AheadCalls ahead;

	// Guarded by this.
	private final WakeTimer timer;

	private final Acknowledgements acknowledgements;

	private final TaskDelivery<T> delivery;

	private final ClaimedAhead claimedAhead = new ClaimedAhead();

	private boolean running;

	private boolean claiming;

	/**
	 * How many of this consumer's handlers finish during a claim's round trip, at the rate they
	 * finished between claims' replies, averaged over the last few (guarded by this); only handlers
	 * that ran shorter than a round trip count ({@link TaskDelivery#finishedQuickly}). The next claim
	 * may take twice as many tasks beyond those that can run at once, when no task waits for a
	 * handler thread: the handlers free enough slots for them within about two round trips. Slow
	 * handlers do not count, even when many end at once, and nothing is claimed beyond them; when
	 * handlers turn slow, what was claimed beyond them last waits, and no more is claimed beyond.
	 */
	private double freedPerRoundTrip;

	// Whether a claim was answered yet; when the last was, and how many handlers had finished then
	// (guarded by this).
	private boolean replied;

	private long lastReplyNanos;

	private long lastRoundTripNanos;

	private long finishedAtLastReply;

	// Whether the last claim left tasks that are due now (guarded by this).
	private boolean backlog;

	/**
	 * Whether the consumer stopped while a claim was under way (guarded by this): until its reply is
	 * read and what it claimed ahead handed back, the consumer counts as busy, so that a stop returns
	 * only once every task it claimed is run or back in the queue.
	 */
	private boolean claimUnderWayAtHalt;

	private final ActiveDeliveries deliveries = new ActiveDeliveries();

	// Whether a claim waits for a handler slot to free up (it runs when one does).
	private boolean awaitingSlot;

	private @Nullable Membership<DueTaskDispatcher<T>> subscription;

	// The subscription of a halted consumer, kept while tasks it claimed ahead wait: they can still
	// be revoked.
	private @Nullable Membership<DueTaskDispatcher<T>> closeWhenNoneWaits;

	/**
	 * @param queue the queue's name
	 * @param keys the queue's keys and channel
	 * @param engine the client's engine
	 * @param claims the consumer's claim call
	 * @param run runs the handler
	 * @param extension keeps the claims of running handlers alive
	 * @param consumers the client's consumers: their handler pool and timings
	 * @param onStop called once the consumer has stopped claiming
	 */
	DueTaskDispatcher(String queue, QueueKeys keys, RedisEngine engine, ClaimCall claims, TaskRun<T> run,
			ClaimExtension extension, Consumers consumers, Runnable onStop) {
		this.queue = queue;
		this.keys = keys;
		this.engine = engine;
		this.claims = claims;
		this.extension = extension;
		this.workers = consumers.workers();
		this.acknowledgeWithClaimNanos = Math.max(ACKNOWLEDGE_WITH_CLAIM_NANOS, consumers.claimAhead().toNanos());
		this.defaultGrace = consumers.shutdownGrace();
		this.onStop = onStop;
		this.ahead = new AheadCalls(queue, keys, engine);
		this.acknowledgements = new Acknowledgements(queue, engine, claims, deliveries, this, this::claimSoon,
				this::claimWaitsForSlot);
		this.delivery = new TaskDelivery<>(queue, run, extension, acknowledgements, deliveries, workers);
		this.timer = new WakeTimer(engine.scheduler(), this::claim,
				TimeUnit.NANOSECONDS.toMicros(consumers.sweepInterval().toNanos()));
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
		extension.start();
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
		if (ClaimedAhead.isRevocation(message)) {
			revoked(message);
			return;
		}
		long delayMicros;
		try {
			delayMicros = Long.parseLong(message);
		}
		catch (NumberFormatException ex) {
			delayMicros = 0;
		}
		long at = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(Math.max(0, delayMicros));
		synchronized (this) {
			if (running) {
				timer.wakeBy(at, claiming);
			}
		}
	}

	/** A wake-up published while the connection was down is lost: the consumer looks at its queue now. */
	@Override
	public void onResubscribed() {
		synchronized (this) {
			if (running) {
				timer.wakeBy(System.nanoTime(), claiming);
			}
		}
	}

	private void claim() {
		int reserved;
		List<String> finished;
		synchronized (this) {
			if (!running || claiming) {
				return;
			}
			timer.cancel();
			awaitingSlot = false;
			// Slots free up fast while a backlog drains: claim for several at once rather than for each
			// as it frees, at most as many as freed during a round trip, so the wait stays that short.
			forgetStaleRate(System.nanoTime());
			int freed = (int) Math.round(freedPerRoundTrip);
			int min = (backlog && workers.inUse() > 0) ? Math.min(workers.concurrency(), freed) : 1;
			int beyond = (workers.waiting() == 0) ? 2 * freed : 0;
			reserved = workers.reserve(MAX_BATCH, min, beyond);
			if (reserved == 0) {
				awaitingSlot = true;
				workers.whenSlotFree(this::claim, min, beyond);
				finished = acknowledgements.takeToSendAlone();
			}
			else {
				claiming = true;
				timer.claimBegins();
				finished = acknowledgements.takeAll();
			}
		}
		long sentNanos = System.nanoTime();
		if (reserved == 0) {
			acknowledgements.send(finished);
			return;
		}
		// Bounded by the command timeout: a claim whose reply never comes (its command lost with a
		// connection) would otherwise keep this consumer from claiming for good.
		claims.send(reserved, finished)
			.orTimeout(engine.commandTimeout().toNanos(), TimeUnit.NANOSECONDS)
			.whenComplete((reply, failure) -> claimed(reserved, finished, sentNanos, reply, failure));
	}

	private void claimed(int reserved, List<String> finished, long sentNanos, @Nullable List<Object> reply,
			@Nullable Throwable failure) {
		long repliedNanos = System.nanoTime();
		long finishedNow = delivery.finishedQuickly();
		int claimed = 0;
		long wakeInMicros = TimeUnit.MILLISECONDS.toMicros(RETRY_AFTER_ERROR_MILLIS);
		try {
			acknowledgements.ended(finished, ClaimCall.outcomes(reply, finished), failure);
			if (failure != null) {
				logger.warn("Claiming due tasks of queue '{}' failed; trying again in {} ms", queue,
						RETRY_AFTER_ERROR_MILLIS, failure);
			}
			else if (reply != null) {
				ClaimCall.Reply claim = ClaimCall.read(reply, finished);
				wakeInMicros = claim.wakeInMicros();
				Map<String, Waiting> handBack = new HashMap<>();
				for (ClaimedTask task : claim.tasks()) {
					claimed++;
					accept(task, handBack, sentNanos);
				}
				ahead.handBack(handBack, this::ended);
			}
		}
		finally {
			workers.release(reserved - claimed);
		}
		List<String> alone;
		Membership<DueTaskDispatcher<T>> toClose;
		boolean haltWaited;
		synchronized (this) {
			claiming = false;
			freedPerRoundTrip = (reply != null)
					? (3 * freedPerRoundTrip + freedInRoundTrip(repliedNanos - sentNanos, repliedNanos, finishedNow)) / 4
					: 0;
			replied = true;
			lastReplyNanos = repliedNanos;
			lastRoundTripNanos = repliedNanos - sentNanos;
			if (reply != null) {
				delivery.quickWithin(lastRoundTripNanos);
			}
			finishedAtLastReply = finishedNow;
			backlog = reply != null && wakeInMicros == 0;
			haltWaited = claimUnderWayAtHalt;
			claimUnderWayAtHalt = false;
			toClose = subscriptionToClose();
			if (running) {
				timer.claimEnded(wakeInMicros);
			}
			// Deliveries that finished while this claim was under way: with the next claim if it
			// comes soon, else now.
			alone = acknowledgements.takeToSendAlone();
		}
		if (toClose != null) {
			toClose.close();
		}
		acknowledgements.send(alone);
		if (haltWaited) {
			deliveries.end(1);
		}
	}

	/**
	 * Called holding this monitor: when no claim was answered for several round trips (the handlers
	 * kept every slot), how many handlers finish in a round trip is measured again over that time,
	 * and the average drops to it if lower: handlers that turned slow are not claimed beyond again.
	 */
	private void forgetStaleRate(long nowNanos) {
		long since = nowNanos - lastReplyNanos;
		if (replied && lastRoundTripNanos > 0 && since > 4 * lastRoundTripNanos) {
			freedPerRoundTrip = Math.min(freedPerRoundTrip,
					freedInRoundTrip(lastRoundTripNanos, nowNanos, delivery.finishedQuickly()));
		}
	}

	/**
	 * Called holding this monitor: how many handlers finish in a round trip, at the rate they finished
	 * since the last claim's reply.
	 */
	private double freedInRoundTrip(long roundTripNanos, long nowNanos, long finishedNow) {
		long since = nowNanos - lastReplyNanos;
		if (!replied || since <= 0) {
			return 0;
		}
		double freed = (double) (finishedNow - finishedAtLastReply) * roundTripNanos / since;
		return Math.min(workers.concurrency() * TaskWorkers.CLAIMED_BEYOND_RUNNING, freed);
	}

	/**
	 * Runs a claimed task on its reserved slot: at once, or when it is due if it was claimed ahead,
	 * unless it is revoked first. A task of that id still waiting under an earlier claim ahead, whose
	 * revocation message was missed, is dropped: Redis holds only the new claim. One claimed ahead
	 * after the consumer stopped goes into {@code handBack}.
	 */
	private void accept(ClaimedTask task, Map<String, Waiting> handBack, long claimedNanos) {
		String id = task.id();
		Waiting waiting = (task.startInMicros() > 0) ? new Waiting(task.token()) : null;
		Waiting superseded;
		boolean givenBack;
		deliveries.begin();
		synchronized (this) {
			// Claimed ahead by a claim that was under way when the consumer stopped: not ours to run.
			givenBack = waiting != null && !running;
			if (givenBack) {
				superseded = null;
			}
			else if (waiting == null) {
				superseded = claimedAhead.remove(id);
			}
			else {
				superseded = claimedAhead.add(id, waiting);
				waiting.start = engine.scheduler().schedule(() -> {
					// Due: it starts once Redis confirms its claim still stands.
					if (stopWaiting(id, waiting)) {
						long confirming = System.nanoTime();
						ahead.confirm(task, () -> execute(task, confirming), () -> ended(1));
					}
				}, task.startInMicros(), TimeUnit.MICROSECONDS);
			}
		}
		if (superseded != null) {
			dropRevoked(id, superseded);
		}
		if (givenBack) {
			handBack.put(id, waiting);
		}
		else if (waiting == null) {
			delivery.expect(task);
			execute(task, claimedNanos);
		}
	}

	/**
	 * Runs a claimed task on its reserved slot once a handler thread is free, its claim kept alive
	 * meanwhile.
	 * @param claimedNanos when its claim was sent, or confirmed for a task claimed ahead
	 */
	private void execute(ClaimedTask task, long claimedNanos) {
		ClaimExtension.Running running = delivery.claimed(task, claimedNanos);
		workers.execute(() -> delivery.deliver(task, running));
	}

	/** Ends deliveries that did not run: their slots and their counts. */
	private void ended(int count) {
		workers.release(count);
		deliveries.end(count);
	}

	/** A revocation message: drops that task if it still waits under the revoked claim. */
	private void revoked(String message) {
		Revocation revocation = ClaimedAhead.read(message);
		if (revocation == null) {
			logger.warn("Ignoring a malformed message on the channel of queue '{}': {}", queue, message);
			return;
		}
		Waiting waiting;
		synchronized (this) {
			waiting = claimedAhead.get(revocation.id());
		}
		if (waiting != null && waiting.token.equals(revocation.token()) && stopWaiting(revocation.id(), waiting)) {
			dropRevoked(revocation.id(), waiting);
		}
	}

	/**
	 * Ends the delivery of a task claimed ahead that was revoked before it started, once it is no
	 * longer among the waiting ones (so its timer, if it fires, does not start it).
	 */
	private void dropRevoked(String id, Waiting waiting) {
		waiting.cancelStart();
		logger.debug("Task '{}' of queue '{}', claimed ahead, was revoked before it started", id, queue);
		ended(1);
	}

	/**
	 * Takes a task out of the waiting ones, which makes the caller the one that starts or drops it;
	 * false when it is not there (it started or was revoked). A halted consumer closes its
	 * subscription once none waits.
	 */
	private boolean stopWaiting(String id, Waiting waiting) {
		Membership<DueTaskDispatcher<T>> toClose;
		synchronized (this) {
			if (!claimedAhead.take(id, waiting)) {
				return false;
			}
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
		if (closeWhenNoneWaits == null || !claimedAhead.isEmpty() || claiming) {
			return null;
		}
		Membership<DueTaskDispatcher<T>> toClose = closeWhenNoneWaits;
		closeWhenNoneWaits = null;
		return toClose;
	}

	/** Called holding this monitor: whether a claim waits for the slot a finishing handler frees. */
	private boolean claimWaitsForSlot() {
		return running && awaitingSlot;
	}

	/** Called holding this monitor: whether a claim is under way or comes soon, to carry acknowledgements. */
	private boolean claimSoon() {
		return running && (claiming || timer.claimWithin(acknowledgeWithClaimNanos));
	}

	@Override
	public boolean stop(Duration grace) {
		halt();
		boolean idle = awaitIdle(System.nanoTime() + grace.toNanos(), grace);
		stopExtending();
		return idle;
	}

	/** After the grace period: handlers still running stay in flight, and their claims lapse. */
	void stopExtending() {
		extension.close();
	}

	/** Stops claiming: no task is claimed by this consumer after this returns. */
	void halt() {
		Membership<DueTaskDispatcher<T>> joined;
		List<String> finished;
		Map<String, Waiting> handBack;
		synchronized (this) {
			if (!running) {
				return;
			}
			running = false;
			awaitingSlot = false;
			timer.cancel();
			joined = subscription;
			subscription = null;
			// Tasks claimed ahead go back to the queue, for an instance that keeps running.
			handBack = claimedAhead.takeAll();
			if (claiming) {
				// Until the claim under way is answered, it may still take tasks to hand back.
				closeWhenNoneWaits = joined;
				joined = null;
				claimUnderWayAtHalt = true;
				deliveries.begin();
			}
			// No claim comes any more: acknowledgements waiting for one go now.
			finished = acknowledgements.takeToSendAlone();
		}
		acknowledgements.send(finished);
		ahead.handBack(handBack, this::ended);
		if (joined != null) {
			joined.close();
		}
		onStop.run();
	}

	/** Waits until no handler of this consumer runs, or the deadline. */
	boolean awaitIdle(long deadlineNanos, Duration grace) {
		return deliveries.awaitNone(queue, deadlineNanos, grace);
	}

	@Override
	public void close() {
		stop(defaultGrace);
	}

}
