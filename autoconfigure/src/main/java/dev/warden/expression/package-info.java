/**
 * Internal: SpEL expressions over method calls, shared by the annotations, not for use by
 * applications; may change in any release.
 */
@NullMarked
package dev.warden.expression;

import org.jspecify.annotations.NullMarked;
