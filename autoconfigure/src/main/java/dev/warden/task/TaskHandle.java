package dev.warden.task;

import org.jspecify.annotations.Nullable;

/**
 * A task scheduled by calling a {@link dev.warden.task.annotation.DelayedTask} method: a method that
 * declares this return type gets it back from each call, so its caller has the task's id at hand
 * (to cancel or reschedule it through {@link DelayedQueue}) without rebuilding it. When the task
 * runs, the method's own return value is ignored: its body may return {@code null}.
 *
 * <pre>{@code
 * @DelayedTask(queue = "order-timeouts", delay = "30m", id = "#orderId")
 * public TaskHandle closeIfUnpaid(String orderId) {
 *     orders.closeIfStillUnpaid(orderId);
 *     return null;
 * }
 * }</pre>
 *
 * @param queue the task's queue
 * @param id the task's id
 * @param result what scheduling did: stored, replaced, or kept an already pending task
 */
public record TaskHandle(String queue, String id, ScheduleResult result) {

	/** {@return when the task is due, by Redis's clock; {@code null} for a pending task being handled now} */
	public java.time.@Nullable Instant dueAt() {
		return result.dueAt();
	}

}
