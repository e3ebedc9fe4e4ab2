/**
 * Spring Boot auto-configuration of Warden: a {@link dev.warden.Warden} bean on the application's
 * own Lettuce client, and the {@link dev.warden.lock.annotation.DistributedLock} interceptor.
 */
@NullMarked
package dev.warden.autoconfigure;

import org.jspecify.annotations.NullMarked;
