package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;

import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.PayloadCheck;
import dev.warden.task.PayloadCodec;
import dev.warden.task.QueuedTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the earliest pending tasks and the latest dead letters of a queue with its consumer's
 * codec, and says at WARN which it could not read: after a deploy that changed a task's argument
 * types, before those tasks come due and go to the dead letters one by one. A consumer does it when
 * it starts, on a thread of its own; {@code Warden.checkPayloads} (and the Actuator endpoint) on
 * demand.
 */
final class PayloadSampler {

	private static final Logger logger = LoggerFactory.getLogger(PayloadSampler.class);

	/** How many pending tasks and dead letters are read. */
	static final int SAMPLE = 100;

	/** How many unreadable ids the warning names. */
	private static final int NAMED = 5;

	private PayloadSampler() {
	}

	/** Reads the samples in the background. */
	static void checkLater(String queue, DelayedQueue<?> tasks, PayloadCodec<?> codec) {
		Thread thread = new Thread(() -> {
			try {
				check(queue, tasks, codec);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not sample the payloads of queue '{}'", queue, ex);
			}
		}, "warden-payload-check-" + queue);
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * Reads the samples now.
	 * @throws RuntimeException when Redis cannot be read
	 */
	static PayloadCheck check(String queue, DelayedQueue<?> tasks, PayloadCodec<?> codec) {
		List<String> pending = new ArrayList<>();
		List<String> dead = new ArrayList<>();
		String reason = null;
		List<QueuedTask> queued = tasks.pendingTasks(0, SAMPLE);
		for (QueuedTask task : queued) {
			String problem = problem(codec, task.payload());
			if (problem != null) {
				pending.add(task.id());
				reason = (reason != null) ? reason : problem;
			}
		}
		List<DeadLetter> letters = tasks.deadLetters(0, SAMPLE);
		for (DeadLetter letter : letters) {
			String problem = (letter.payload() != null) ? problem(codec, letter.payload()) : null;
			if (problem != null) {
				dead.add(letter.id());
				reason = (reason != null) ? reason : problem;
			}
		}
		PayloadCheck finding = new PayloadCheck(queue, queued.size(), pending, letters.size(), dead, reason);
		if (!finding.clean()) {
			logger.warn("Queue '{}': {} of its {} earliest pending tasks ({}) and {} of its {} latest dead letters ({}) "
					+ "cannot be read with the classes deployed now: {}. Unless a newer instance runs them, pending ones "
					+ "will go to the dead letters when due: deploy a @TaskUpgrade (or a reader) for their shape "
					+ "before then", queue, pending.size(), queued.size(),
					named(pending), dead.size(), letters.size(), named(dead), reason);
		}
		return finding;
	}

	private static @Nullable String problem(PayloadCodec<?> codec, String payload) {
		try {
			codec.decode(payload);
			return null;
		}
		catch (RuntimeException ex) {
			return String.valueOf(ex.getMessage());
		}
	}

	private static String named(List<String> ids) {
		if (ids.isEmpty()) {
			return "none";
		}
		String first = String.join(", ", ids.subList(0, Math.min(NAMED, ids.size())));
		return (ids.size() > NAMED) ? first + ", ..." : first;
	}

}
