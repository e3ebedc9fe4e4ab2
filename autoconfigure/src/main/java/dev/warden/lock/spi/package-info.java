/**
 * SPI: how {@link dev.warden.lock.annotation.DistributedLock} holds its locks for a return type
 * that completes after the call, through a {@link dev.warden.lock.spi.LockedReturnTypeHandler}
 * bean.
 * <p>
 * Warden's own handlers take {@code CompletionStage}, {@code Mono} and {@code Flux}, and
 * {@code warden-kotlin}'s take {@code suspend} functions and {@code Flow}s; an application adds
 * another asynchronous type by declaring a bean of its own. A handler sees the call as a
 * {@link dev.warden.lock.spi.LockedCall} and its locks as a {@link dev.warden.lock.spi.LockSet}.
 */
@NullMarked
package dev.warden.lock.spi;

import org.jspecify.annotations.NullMarked;
