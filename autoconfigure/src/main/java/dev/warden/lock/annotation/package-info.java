/**
 * Public API: {@link dev.warden.lock.annotation.DistributedLock}: run a Spring bean method under a
 * distributed lock.
 */
@NullMarked
package dev.warden.lock.annotation;

import org.jspecify.annotations.NullMarked;
