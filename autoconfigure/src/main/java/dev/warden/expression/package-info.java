/**
 * SpEL expressions over method calls, shared by the lock and delayed-task annotations.
 */
@NullMarked
package dev.warden.expression;

import org.jspecify.annotations.NullMarked;
