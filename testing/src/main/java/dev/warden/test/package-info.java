/**
 * Public API: testing applications that use Warden: {@link dev.warden.test.WardenTest} gives a
 * Spring Boot test a real Redis without set-up, {@link dev.warden.test.TaskClock} runs due tasks by
 * moving the queue's clock and reports them as {@link dev.warden.test.RanTask}s,
 * {@link dev.warden.test.TaskModes} runs tasks inline or not at all, {@link dev.warden.test.LockRecorder}
 * and {@link dev.warden.test.PendingTasks} show what the application locked and scheduled, and
 * {@link dev.warden.test.OtherInstance} is a second instance of it on the same Redis.
 */
@NullMarked
package dev.warden.test;

import org.jspecify.annotations.NullMarked;
