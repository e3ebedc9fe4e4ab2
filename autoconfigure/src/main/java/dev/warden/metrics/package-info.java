/**
 * Internal: what records Warden's Micrometer meters, for locks taken through the annotation, rate
 * limits and delayed tasks, not for use by applications; may change in any release.
 * <p>
 * The meters themselves, their names, types and tags, are what applications and dashboards rely
 * on: they are documented in {@code docs/observability.md} and kept like the public API.
 */
@NullMarked
package dev.warden.metrics;

import org.jspecify.annotations.NullMarked;
