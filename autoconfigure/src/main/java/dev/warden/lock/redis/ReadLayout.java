package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/** The read side of Redisson's {@code RReadWriteLock}. */
final class ReadLayout extends ReadWriteSide {

	ReadLayout(String name, KeyNamespace namespace) {
		super(name, "read", namespace);
	}

	private String[] keys(String ownerId) {
		return new String[] { name, timeoutPrefix(ownerId) };
	}

	private String timeoutPrefix(String ownerId) {
		return "{" + name + "}:" + ownerId + ":rwlock_timeout";
	}

	@Override
	CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken) {
		return engine.eval(LockScripts.READ_ACQUIRE, ScriptOutputType.INTEGER, keys(ownerId),
				Long.toString(leaseMillis), ownerId, ownerId + RedisReadWriteLock.WRITE_SUFFIX);
	}

	@Override
	CompletableFuture<@Nullable Long> release(RedisEngine engine, String ownerId) {
		return engine.eval(LockScripts.READ_RELEASE, ScriptOutputType.INTEGER,
				new String[] { name, timeoutPrefix(ownerId), "{" + name + "}" }, ownerId, channel);
	}

	@Override
	CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
		return engine.eval(LockScripts.READ_RENEW, ScriptOutputType.INTEGER, keys(ownerId),
				Long.toString(leaseMillis), ownerId);
	}

}
