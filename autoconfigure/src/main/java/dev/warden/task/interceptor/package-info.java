/**
 * Internal: the machinery behind {@link dev.warden.task.annotation.DelayedTask}, not for use by
 * applications; may change in any release.
 * <p>
 * Annotations parsed and checked once, the interceptor that turns calls into scheduled tasks, and
 * the registrar that consumes each annotated queue.
 */
@NullMarked
package dev.warden.task.interceptor;

import org.jspecify.annotations.NullMarked;
