/**
 * Public API: Warden, distributed locks, durable delayed tasks and rate limits on Redis.
 * <p>
 * {@link dev.warden.Warden} is the entry point for plain Java; Spring Boot applications get one
 * as a bean from the starter.
 */
@NullMarked
package dev.warden;

import org.jspecify.annotations.NullMarked;
