package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/** The write side of Redisson's {@code RReadWriteLock}: its release wakes every waiter. */
final class WriteLayout extends ReadWriteSide {

	WriteLayout(String name, KeyNamespace namespace) {
		super(name, "write", namespace);
	}

	@Override
	String holdField(String ownerId) {
		return ownerId + RedisReadWriteLock.WRITE_SUFFIX;
	}

	@Override
	CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken) {
		return engine.eval(LockScripts.WRITE_ACQUIRE, ScriptOutputType.INTEGER, acquireKeys,
				Long.toString(leaseMillis), holdField(ownerId), withToken);
	}

	@Override
	CompletableFuture<@Nullable Long> release(RedisEngine engine, String ownerId) {
		return engine.eval(LockScripts.WRITE_RELEASE, ScriptOutputType.INTEGER, keys, holdField(ownerId), channel);
	}

}
