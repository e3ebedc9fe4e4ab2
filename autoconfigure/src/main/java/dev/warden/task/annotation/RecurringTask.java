package dev.warden.task.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.warden.aot.WardenAnnotationsReflectiveProcessor;
import dev.warden.task.Misfire;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs a bean method with no parameters on a schedule, each occurrence on exactly one instance of
 * the application: the replacement for {@code @Scheduled} plus a lock.
 *
 * <pre>{@code
 * @RecurringTask(cron = "0 0 2 * * *", zone = "Europe/Paris")
 * public void nightlyReport() {
 *     // at 02:00 Paris time, on one instance
 * }
 * }</pre>
 *
 * <p>
 * The schedule lives in Redis, not in any instance: the next occurrence is a delayed task of the
 * application's recurring queue ({@code warden.recurring.queue}), with an id made of the job's name
 * and its due time, planned when the run of the one before it ends, so that, as with
 * {@code @Scheduled}, a job never runs twice at once, on any instance, however long a run takes. It
 * survives restarts, and Redis's clock decides when it is due. A run that throws is retried and,
 * after its last attempt, kept as a dead letter, like a delayed task; the occurrences after it are
 * planned as usual (so a retry, after its backoff, may run beside a later occurrence).
 * <p>
 * When no instance was up at an occurrence's due time (it starts later than
 * {@code warden.recurring.misfire-threshold}), {@link #misfire()} decides: run it once, or skip it;
 * either way the job goes on from the next occurrence after now. Changing the schedule in the code
 * and redeploying plans the job anew once an instance with the new code starts (while old and new
 * instances run side by side, each plans by its own definition when it starts); removing the
 * annotation removes the job and its planned occurrence when an instance that still has recurring
 * tasks, but not this one, starts. Instances that define different sets of jobs (by profile, say)
 * therefore need recurring queues of their own ({@code warden.recurring.queue}); an instance
 * without any recurring task takes no part.
 * <p>
 * Exactly one of {@link #cron()}, {@link #fixedRate()} and {@link #fixedDelay()}. Checked at
 * startup: a method without parameters, one schedule that parses, a unique name; anything else fails
 * startup naming the method. The method is called through the bean, so its other advice (such as
 * {@code @Transactional}) applies.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(WardenAnnotationsReflectiveProcessor.class)
public @interface RecurringTask {

	/**
	 * The job's name, unique in the application; by default the declaring class's simple name and
	 * the method's name ({@code ReportJobs.nightly}). Renaming a job plans a new one and removes the
	 * old one.
	 * @return the job's name, or empty for the default
	 */
	String name() default "";

	/**
	 * A cron expression, Spring's six fields (second, minute, hour, day of month, month, day of
	 * week) or a macro such as {@code @hourly}; a placeholder such as {@code ${reports.cron}} is
	 * resolved. As with {@code @Scheduled(cron)}, the next run is the first cron time after the run
	 * before it ended: cron times that pass while it runs are skipped.
	 * <p>
	 * Around a daylight saving change in {@link #zone()}, an expression at fixed times of day (no
	 * {@code *} nor {@code /} in its minute and hour fields, such as {@code 0 30 2 * * *}) runs each
	 * local time it names once, as the {@code cron} daemon does: a time that the spring-forward gap
	 * skips runs at the first instant after the gap (03:00), a time that the fall-back repeats runs
	 * at its first instance only. An expression at intervals ({@code *} or {@code /} in its minute or
	 * hour) runs by elapsed time: nothing in the gap, and again in the repeated hour.
	 * @return the cron expression, or empty
	 */
	String cron() default "";

	/** {@return the time zone of {@link #cron()}: {@code UTC} by default, never an instance's own zone} */
	String zone() default "";

	/**
	 * Runs every so often, the period kept by Redis's clock: {@code 30s}, {@code PT5M}, or a
	 * placeholder. The occurrences keep the phase of the first one. As with
	 * {@code @Scheduled(fixedRate)}, a run that takes longer than the rate is never overlapped: the
	 * next one starts as soon as it ends (the last slot of the rate that passed meanwhile, due at
	 * once), and the slots before it are not made up.
	 * @return the rate, or empty
	 */
	String fixedRate() default "";

	/**
	 * Runs this long after each run ends: {@code 30s}, {@code PT5M}, or a placeholder.
	 * @return the delay, or empty
	 */
	String fixedDelay() default "";

	/**
	 * With {@link #fixedRate()} or {@link #fixedDelay()}: how long after the job is first planned
	 * its first occurrence is due; {@code 0s} by default.
	 * @return the initial delay
	 */
	String initialDelay() default "";

	/** {@return what an occurrence that starts later than the misfire threshold does} */
	Misfire misfire() default Misfire.RUN_ONCE;

}
