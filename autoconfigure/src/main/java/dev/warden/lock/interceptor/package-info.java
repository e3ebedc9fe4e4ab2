/**
 * The machinery behind {@link dev.warden.lock.annotation.DistributedLock}: annotations parsed
 * once into {@link dev.warden.lock.interceptor.LockOperation}s, SpEL keys parsed once per method,
 * the interceptor, and the return-type handlers for asynchronous methods.
 */
@NullMarked
package dev.warden.lock.interceptor;

import org.jspecify.annotations.NullMarked;
