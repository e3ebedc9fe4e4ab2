package dev.warden.task.redis;

import java.nio.charset.StandardCharsets;
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
 * <p>
 * The samples are listed with payload excerpts cut in Redis, and each payload that the excerpt does
 * not hold whole is then read on its own, so that at most one whole payload (besides the finding) is
 * held at a time; a check reads at most {@value #BUDGET_BYTES} bytes of payloads in all and stops
 * early, saying so, when the next one would not fit.
 */
final class PayloadSampler {

	private static final Logger logger = LoggerFactory.getLogger(PayloadSampler.class);

	/** How many pending tasks and dead letters are read. */
	static final int SAMPLE = 100;

	/**
	 * How many bytes of payloads one check reads at most, excerpts and whole payloads together: 16
	 * MiB, sixteen payloads of the default {@code warden.delayed-task.max-payload-size}.
	 */
	static final long BUDGET_BYTES = 16L * 1024 * 1024;

	/** How many bytes of each payload the listing carries: a small payload is read whole with it. */
	static final int EXCERPT_BYTES = 4096;

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
		return check(queue, tasks, codec, BUDGET_BYTES);
	}

	/** Reads the samples now, at most {@code budget} bytes of payloads. */
	static PayloadCheck check(String queue, DelayedQueue<?> tasks, PayloadCodec<?> codec, long budget) {
		Sampling sampling = new Sampling(codec, budget);
		for (QueuedTask listed : tasks.pendingTasks(0, SAMPLE, EXCERPT_BYTES)) {
			if (!sampling.affords(listed.payload(), listed.payloadSize(), listed.payloadComplete())) {
				break;
			}
			String payload = listed.payloadComplete() ? listed.payload()
					: tasks.pendingTask(listed.id()).map(QueuedTask::payload).orElse(null);
			sampling.read(listed.id(), payload, sampling.pending);
		}
		int pendingSampled = sampling.sampled;
		sampling.sampled = 0;
		if (!sampling.budgetReached) {
			for (DeadLetter listed : tasks.deadLetters(0, SAMPLE, EXCERPT_BYTES)) {
				if (listed.payload() == null) {
					sampling.sampled++;
					continue;
				}
				if (!sampling.affords(listed.payload(), listed.payloadSize(), listed.payloadComplete())) {
					break;
				}
				String payload = listed.payloadComplete() ? listed.payload()
						: tasks.deadLetter(listed.id()).map(DeadLetter::payload).orElse(null);
				sampling.read(listed.id(), payload, sampling.dead);
			}
		}
		PayloadCheck finding = new PayloadCheck(queue, pendingSampled, sampling.pending, sampling.sampled,
				sampling.dead, sampling.reason, sampling.budgetReached);
		if (!finding.clean()) {
			logger.warn("Queue '{}': {} of its {} earliest pending tasks ({}) and {} of its {} latest dead letters ({}) "
					+ "cannot be read with the classes deployed now: {}. Unless a newer instance runs them, pending ones "
					+ "will go to the dead letters when due: deploy a @TaskUpgrade (or a reader) for their shape "
					+ "before then", queue, sampling.pending.size(), pendingSampled,
					named(sampling.pending), sampling.dead.size(), finding.deadLettersSampled(), named(sampling.dead),
					sampling.reason);
		}
		if (finding.budgetReached()) {
			logger.info("Queue '{}': the payload check stopped after {} pending tasks and {} dead letters, at its "
					+ "budget of {} bytes of payloads", queue, pendingSampled, finding.deadLettersSampled(), budget);
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

	/** What a check has read so far, and how many bytes of its budget are left. */
	private static final class Sampling {

		private final PayloadCodec<?> codec;

		private final List<String> pending = new ArrayList<>();

		private final List<String> dead = new ArrayList<>();

		private @Nullable String reason;

		private long left;

		private int sampled;

		private boolean budgetReached;

		Sampling(PayloadCodec<?> codec, long budget) {
			this.codec = codec;
			this.left = budget;
		}

		/**
		 * Spends the budget on a listed task: its excerpt, and its whole payload when the excerpt is
		 * not all of it; {@code false}, and the check stops, when that does not fit.
		 */
		boolean affords(String excerpt, long size, boolean complete) {
			long cost = excerpt.getBytes(StandardCharsets.UTF_8).length + (complete ? 0 : size);
			if (cost > left) {
				budgetReached = true;
				return false;
			}
			left -= cost;
			return true;
		}

		/** Decodes one payload; {@code null} when the task went in the meantime (it is not counted). */
		void read(String id, @Nullable String payload, List<String> unreadable) {
			if (payload == null) {
				return;
			}
			sampled++;
			String problem = problem(codec, payload);
			if (problem != null) {
				unreadable.add(id);
				reason = (reason != null) ? reason : problem;
			}
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
