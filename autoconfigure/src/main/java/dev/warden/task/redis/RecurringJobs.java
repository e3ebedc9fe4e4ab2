package dev.warden.task.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import dev.warden.redis.RedisEngine;
import dev.warden.task.DelayedQueue;
import dev.warden.task.Delivery;
import dev.warden.task.Misfire;
import dev.warden.task.RecurringJob;
import dev.warden.task.RecurringSchedule;
import dev.warden.task.TaskConsumer;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs recurring jobs once per occurrence across every instance, on a delayed queue of their own.
 * <p>
 * Each job has at most one planned occurrence: a task of the queue whose id is the job's name and
 * its due time ({@code report@1767225600000}), so that instances that plan it at once plan it once.
 * A hash next to the queue ({@code warden:task:{<queue>}:recurring}) keeps each job's plan, its
 * next due time and the definition that planned it; it changes only by compare-and-set, so of the
 * instances that start at once, or that are handed the same occurrence, one plans the next.
 * <p>
 * When an occurrence is due, the instance that claims it runs the job and, once the run has ended,
 * plans the next one: while a run is under way the plan points to its occurrence and no other
 * exists, so a job never runs twice at once, across instances. A fixed rate keeps its phase; a run
 * that took longer than the rate is followed at once by the last slot it missed
 * ({@link RecurringSchedule#next}). Every time comes from Redis's clock: the due times,
 * and the "now" that decides whether an occurrence is late. An occurrence that starts later than
 * the misfire threshold (no instance was up) runs once or is skipped, by the job's
 * {@link Misfire}; either way the next one is the first after now, so missed occurrences are not
 * made up. A failed run is retried and dead-lettered as the queue's tasks are.
 * <p>
 * When an instance starts, it plans each of its jobs that has no plan yet, plans anew a job whose
 * definition changed (cancelling the occurrence planned by the old one), plans again an occurrence
 * that went missing (an instance died between planning and scheduling it), and removes the plan of
 * a job it does not define (cancelling its occurrence): the application no longer has it. So every
 * instance that runs jobs on one queue defines the same jobs (instances that define other jobs use
 * another queue); an instance that defines none takes no part. An occurrence of a job this instance
 * does not define (during a rolling deployment) fails, so that it is retried on another.
 * <p>
 * An occurrence runs on whichever instance claims it, which plans the next one by the definition of
 * the job's plan (read back from its text), not its own: instances of two versions with
 * different schedules for a job, side by side during a rolling deployment, never undo each other's
 * plans nor drop an occurrence. The plan takes a new definition only when an instance that defines
 * it starts, so it ends with the definition of the last version deployed.
 */
public final class RecurringJobs {

	private static final Logger logger = LoggerFactory.getLogger(RecurringJobs.class);

	private final DelayedQueue<Occurrence> queue;

	private final RedisEngine engine;

	private final String[] planKey;

	private final Map<String, RecurringJob> jobs = new LinkedHashMap<>();

	private final long misfireThresholdMillis;

	/**
	 * One occurrence of a job: the task's payload.
	 *
	 * @param job the job's name
	 * @param definition the definition that planned it
	 * @param due when it is due, in Redis's epoch milliseconds
	 */
	public record Occurrence(String job, String definition, long due) {
	}

	/**
	 * @param queue the jobs' queue, which holds their occurrences
	 * @param engine the client's engine
	 * @param jobs the jobs this instance defines, with distinct names
	 * @param misfireThreshold how late an occurrence may start before it is a misfire
	 */
	public RecurringJobs(DelayedQueue<Occurrence> queue, RedisEngine engine, List<RecurringJob> jobs,
			Duration misfireThreshold) {
		if (misfireThreshold == null || misfireThreshold.isNegative()) {
			throw new IllegalArgumentException("The misfire threshold must be zero or positive: " + misfireThreshold);
		}
		this.queue = queue;
		this.engine = engine;
		this.planKey = new String[] { engine.namespace().taskPrefix() + "{" + queue.getName() + "}:recurring" };
		for (RecurringJob job : jobs) {
			if (this.jobs.putIfAbsent(job.name(), job) != null) {
				throw new IllegalArgumentException("Two recurring jobs are named '" + job.name() + "' on queue '"
						+ queue.getName() + "'");
			}
		}
		this.misfireThresholdMillis = misfireThreshold.toMillis();
	}

	/**
	 * Plans the jobs (see the class description) and starts consuming their queue on this client.
	 * @return the consumer; closing it stops running occurrences here
	 */
	public TaskConsumer start() {
		if (jobs.isEmpty()) {
			// An instance without jobs takes no part: it neither runs occurrences nor removes the jobs
			// of the instances that have them.
			return new Idle(queue.getName());
		}
		reconcile();
		return queue.consume(this::run);
	}

	/** The consumer of an instance without jobs: it consumes nothing. */
	private record Idle(String queue) implements TaskConsumer {

		@Override
		public boolean stop(Duration grace) {
			return true;
		}

		@Override
		public void close() {
		}

	}

	/** Brings the plans in Redis in line with this instance's jobs. */
	void reconcile() {
		Map<String, String> plans = engine.await(engine.commands(planKey[0]).hgetall(planKey[0]), "recurring plans of '"
				+ queue.getName() + "'");
		for (RecurringJob job : jobs.values()) {
			plan(job, plans.get(job.name()));
		}
		plans.forEach((name, value) -> {
			if (!jobs.containsKey(name) && swap(name, value, "")) {
				Plan removed = Plan.parse(value);
				queue.cancel(RecurringJob.occurrenceId(name, removed.due()));
				logger.info("Recurring job '{}' of queue '{}' is no longer defined: its plan is removed and its "
						+ "occurrence due at {} cancelled", name, queue.getName(), Instant.ofEpochMilli(removed.due()));
			}
		});
	}

	private void plan(RecurringJob job, @Nullable String current) {
		String definition = job.schedule().definition();
		Plan plan = (current != null) ? Plan.parse(current) : null;
		if (plan != null && plan.definition().equals(definition)) {
			// Planned as defined here: make sure its occurrence exists (scheduling is idempotent by id).
			schedule(job, plan.due());
			return;
		}
		if (plan != null && !queue.cancel(job.occurrenceId(plan.due()))
				&& queue.contains(job.occurrenceId(plan.due()))) {
			// Its occurrence is under way: the job keeps one run at a time. The plan keeps pointing to
			// it, with this definition, by which the next one is planned when the run ends.
			if (swap(job.name(), current, new Plan(plan.due(), definition).value())) {
				logger.info("Recurring job '{}' is planned anew ({}, was {}) once its run under way ends", job.name(),
						definition, plan.definition());
			}
			return;
		}
		OptionalLong first = job.schedule().first(redisMillis());
		if (first.isEmpty()) {
			logger.warn("Recurring job '{}' ({}) has no future occurrence; it is not planned", job.name(), definition);
			return;
		}
		if (swap(job.name(), (current != null) ? current : "", new Plan(first.getAsLong(), definition).value())) {
			if (plan != null) {
				queue.cancel(job.occurrenceId(plan.due()));
				logger.info("Recurring job '{}' is planned anew ({}, was {}): first occurrence at {}", job.name(),
						definition, plan.definition(), Instant.ofEpochMilli(first.getAsLong()));
			}
			schedule(job, first.getAsLong());
		}
	}

	private void run(Delivery<Occurrence> delivery) throws Exception {
		Occurrence occurrence = delivery.payload();
		RecurringJob job = jobs.get(occurrence.job());
		if (job == null) {
			throw new IllegalStateException("No recurring job '" + occurrence.job() + "' is defined on this instance");
		}
		String current = engine.await(engine.commands(planKey[0]).hget(planKey[0], job.name()), "recurring plan of '"
				+ job.name() + "'");
		Plan plan = (current != null) ? Plan.parse(current) : null;
		if (plan == null) {
			// No instance plans the job any more (one that does not define it removed it), or its plan
			// was lost: plan it as defined here; the occurrence was cancelled with the plan.
			logger.info("Occurrence {} of recurring job '{}' has no plan any more; not run, the job is planned as"
					+ " defined here", delivery.id(), job.name());
			plan(job, null);
			return;
		}
		// An occurrence runs whichever definition planned it: during a rolling deployment an instance
		// may claim an occurrence that an instance with another schedule planned. The plan goes on by
		// its own definition, which every instance reads, so instances with different schedules never
		// undo each other's plans; the plan takes a new definition only when an instance that defines
		// it starts (plan), and so ends with the last one deployed.
		if (plan.due() == occurrence.due() && !plan.definition().equals(job.schedule().definition())
				&& scheduleOf(plan.definition()) == null) {
			throw new IllegalStateException("Occurrence " + delivery.id() + " of recurring job '" + job.name()
					+ "' is planned by a definition this instance cannot read (" + plan.definition()
					+ "); it is left for an instance that can");
		}
		long now = redisMillis();
		long late = now - occurrence.due();
		try {
			if (delivery.attempt() == 1 && late > misfireThresholdMillis) {
				if (job.misfire() == Misfire.SKIP) {
					logger.info("Recurring job '{}' skipped its occurrence due at {}: it started {} ms late", job.name(),
							Instant.ofEpochMilli(occurrence.due()), late);
					return;
				}
				logger.info("Recurring job '{}' runs its occurrence due at {} once, {} ms late", job.name(),
						Instant.ofEpochMilli(occurrence.due()), late);
			}
			job.action().run();
		}
		finally {
			// The next occurrence is planned once this run has ended, for every schedule: while it runs,
			// the plan points to the occurrence under way and no other exists, so a job never runs
			// twice at once, on any instance, however long a run takes.
			planAfter(job, occurrence, now);
		}
	}

	/**
	 * Plans the occurrence after one whose run ended, when the plan still points to it, by the plan's
	 * definition now: an instance with a new schedule that started during the run gave it its own.
	 * A retry of an earlier occurrence (the plan moved on while it waited for its backoff) plans
	 * nothing.
	 */
	private void planAfter(RecurringJob job, Occurrence occurrence, long started) {
		String current = engine.await(engine.commands(planKey[0]).hget(planKey[0], job.name()), "recurring plan of '"
				+ job.name() + "'");
		Plan plan = (current != null) ? Plan.parse(current) : null;
		if (plan == null || plan.due() != occurrence.due()) {
			return;
		}
		RecurringSchedule schedule = plan.definition().equals(job.schedule().definition()) ? job.schedule()
				: scheduleOf(plan.definition());
		if (schedule == null) {
			logger.warn("Recurring job '{}' is planned by a definition this instance cannot read ({}); an instance"
					+ " that can plans it when it starts", job.name(), plan.definition());
			return;
		}
		advance(job, plan, schedule.next(occurrence.due(), started, redisMillis()));
	}

	/** Moves the job's plan from the occurrence under way to the next one, once, and schedules that. */
	private void advance(RecurringJob job, Plan from, OptionalLong next) {
		if (next.isEmpty()) {
			if (swap(job.name(), from.value(), "")) {
				logger.info("Recurring job '{}' has no further occurrence", job.name());
			}
			return;
		}
		if (swap(job.name(), from.value(), new Plan(next.getAsLong(), from.definition()).value())) {
			schedule(job, from.definition(), next.getAsLong());
		}
	}

	private void schedule(RecurringJob job, long due) {
		schedule(job, job.schedule().definition(), due);
	}

	private void schedule(RecurringJob job, String definition, long due) {
		queue.schedule(job.occurrenceId(due), new Occurrence(job.name(), definition, due), Instant.ofEpochMilli(due));
	}

	/**
	 * The schedule a definition names ({@link RecurringSchedule#definition()}), enough to tell the
	 * occurrence after one; {@code null} for a definition this version does not know.
	 */
	static @Nullable RecurringSchedule scheduleOf(String definition) {
		try {
			if (definition.startsWith("rate ") && definition.endsWith("ms")) {
				return RecurringSchedule.fixedRate(Duration.ofMillis(Long.parseLong(definition.substring(5,
						definition.length() - 2))), Duration.ZERO);
			}
			if (definition.startsWith("delay ") && definition.endsWith("ms")) {
				return RecurringSchedule.fixedDelay(Duration.ofMillis(Long.parseLong(definition.substring(6,
						definition.length() - 2))), Duration.ZERO);
			}
			if (definition.startsWith("cron ")) {
				int zone = definition.lastIndexOf(' ');
				return RecurringSchedule.cron(definition.substring(5, zone), ZoneId.of(definition.substring(zone + 1)));
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Unreadable recurring definition '{}'", definition, ex);
		}
		return null;
	}

	private boolean swap(String job, String expected, String value) {
		Long swapped = engine.await(engine.eval(TaskScripts.RECURRING_SWAP, ScriptOutputType.INTEGER, planKey, job,
				expected, value), "plan of recurring job '" + job + "'");
		return swapped != null && swapped == 1L;
	}

	/** Redis's clock, in epoch milliseconds. */
	private long redisMillis() {
		return engine.await(engine.clockMillis(), "Redis TIME");
	}

	/** A job's plan as stored: {@code <due millis> <definition>}. */
	private record Plan(long due, String definition) {

		static Plan parse(String value) {
			int space = value.indexOf(' ');
			return new Plan(Long.parseLong(value.substring(0, space)), value.substring(space + 1));
		}

		String value() {
			return due + " " + definition;
		}

	}

}
