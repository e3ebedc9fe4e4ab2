/**
 * Public API: distributed locks ({@link dev.warden.lock.DistributedMutex} and its kinds) and
 * synchronizers, the owners that hold them, and the listener told when a lease is lost.
 */
@NullMarked
package dev.warden.lock;

import org.jspecify.annotations.NullMarked;
