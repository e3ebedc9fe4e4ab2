/**
 * Internal: the machinery behind {@link dev.warden.lock.annotation.DistributedLock}, not for use
 * by applications; may change in any release.
 * <p>
 * Annotations parsed once into {@link dev.warden.lock.interceptor.LockOperation}s, SpEL keys parsed
 * once per method, the interceptor, and the return-type handlers for asynchronous methods.
 */
@NullMarked
package dev.warden.lock.interceptor;

import org.jspecify.annotations.NullMarked;
