package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * What the two sides of Redisson's {@code RReadWriteLock} share: one hash whose {@code mode}
 * field says which side holds it, and one channel.
 */
abstract class ReadWriteSide extends LockLayout {

	private final String mode;

	/**
	 * @param name the lock's name and Redis key
	 * @param mode {@code read} or {@code write}, as the hash's {@code mode} field says
	 * @param namespace the client's namespace
	 */
	ReadWriteSide(String name, String mode, KeyNamespace namespace) {
		super(name, RedisReadWriteLock.CHANNEL_PREFIX + ":{" + name + "}", namespace);
		this.mode = mode;
	}

	@Override
	final CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
		return engine.eval(LockScripts.MODE_FORCE_RELEASE, ScriptOutputType.INTEGER, keys, mode, channel);
	}

	/** Whether this side holds the lock. */
	@Override
	final CompletableFuture<Boolean> isLocked(RedisEngine engine) {
		return engine.commands(name).hget(name, "mode").toCompletableFuture().thenApply(mode::equals);
	}

}
