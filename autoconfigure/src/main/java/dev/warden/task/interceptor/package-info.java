/**
 * The machinery behind {@link dev.warden.task.annotation.DelayedTask}: annotations parsed and
 * checked once, the interceptor that turns calls into scheduled tasks, and the registrar that
 * consumes each annotated queue.
 */
@NullMarked
package dev.warden.task.interceptor;

import org.jspecify.annotations.NullMarked;
