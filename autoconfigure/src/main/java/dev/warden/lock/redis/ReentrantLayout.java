package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/** Redisson's {@code RLock}: a hash of owner ids to hold counts, released with message 0. */
final class ReentrantLayout extends LockLayout.HandingOver {

	ReentrantLayout(String name, KeyNamespace namespace) {
		super(name, RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}", namespace);
	}

	@Override
	CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken) {
		return engine.eval(LockScripts.ACQUIRE, ScriptOutputType.INTEGER, acquireKeys, Long.toString(leaseMillis),
				ownerId, withToken);
	}

	@Override
	CompletableFuture<@Nullable Long> releaseScript(RedisEngine engine, String ownerId, String nextOwner,
			long nextLeaseMillis, String nextTakesToken) {
		return engine.eval(LockScripts.RELEASE, ScriptOutputType.INTEGER, acquireKeys, ownerId, channel, nextOwner,
				Long.toString(nextLeaseMillis), nextTakesToken);
	}

	@Override
	CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
		return engine.eval(LockScripts.FORCE_RELEASE, ScriptOutputType.INTEGER, keys, channel);
	}

	@Override
	boolean oneWaiterPerRelease() {
		return true;
	}

}
