/**
 * Warden's Micrometer meters: locks taken through the annotation, and delayed tasks.
 */
@NullMarked
package dev.warden.metrics;

import org.jspecify.annotations.NullMarked;
