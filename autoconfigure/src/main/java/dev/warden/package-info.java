/**
 * Warden: distributed locks and durable delayed tasks on Redis.
 * <p>
 * {@link dev.warden.Warden} is the entry point for plain Java; Spring Boot applications get one
 * as a bean from the starter.
 */
@NullMarked
package dev.warden;

import org.jspecify.annotations.NullMarked;
