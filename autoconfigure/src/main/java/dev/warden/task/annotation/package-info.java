/**
 * Public API: {@link dev.warden.task.annotation.DelayedTask}: calling a bean method schedules it to
 * run later, durably, on exactly one instance at a time.
 */
@NullMarked
package dev.warden.task.annotation;

import org.jspecify.annotations.NullMarked;
