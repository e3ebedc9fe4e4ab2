package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * The plain mutex: a string at the lock's name whose value is the holder's owner id and whose
 * expiry is the lease, released with a compare-and-delete and message 0 on the lock's channel. Not
 * reentrant: an owner that asks for the lock it holds is refused at once. Not handed over: a
 * release always frees the lock and wakes the waiters, which try again.
 */
final class SimpleLayout extends LockLayout {

	private final KnownHolds holds;

	SimpleLayout(String name, KnownHolds holds, KeyNamespace namespace) {
		super(name, RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}", namespace);
		this.holds = holds;
	}

	@Override
	CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken) {
		return engine.eval(LockScripts.SIMPLE_ACQUIRE, ScriptOutputType.INTEGER, acquireKeys,
				Long.toString(leaseMillis), ownerId, withToken, flag(holds.replyLost(this, ownerId)));
	}

	/**
	 * The reply of {@code simple-acquire.lua}: the token ({@code >= 0}), {@code -1} held by the asker,
	 * or {@code -3 - ttl}.
	 */
	@Override
	Contender.Try<Long> attempt(@Nullable Long reply) {
		if (reply == null) {
			throw new IllegalStateException("No acquire reply");
		}
		if (reply >= 0) {
			return Contender.Try.succeeded(reply);
		}
		return Contender.Try.failed((reply == -1) ? HELD_BY_ASKER : -3 - reply);
	}

	@Override
	CompletableFuture<@Nullable Long> release(RedisEngine engine, String ownerId) {
		CompletableFuture<@Nullable Long> freed = engine.eval(LockScripts.SIMPLE_RELEASE, ScriptOutputType.INTEGER,
				keys, ownerId, channel);
		return RedisEngine.map(freed, reply -> (reply != null && reply == 1L) ? reply : null);
	}

	@Override
	CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
		return engine.eval(LockScripts.SIMPLE_RENEW, ScriptOutputType.INTEGER, keys, Long.toString(leaseMillis),
				ownerId);
	}

	@Override
	CompletableFuture<Integer> holdCount(RedisEngine engine, String ownerId) {
		return engine.commands(name).get(name).toCompletableFuture().thenApply(holder -> ownerId.equals(holder) ? 1 : 0);
	}

	/** One hold at most: an acquisition whose reply was lost is taken over by the next, never stacked. */
	@Override
	CompletableFuture<@Nullable Long> trimHolds(RedisEngine engine, String ownerId, int knownCount) {
		return CompletableFuture.completedFuture(0L);
	}

	@Override
	CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
		return engine.eval(LockScripts.FORCE_RELEASE, ScriptOutputType.INTEGER, keys, channel);
	}

}
