package dev.warden.lock.redis;

import dev.warden.redis.LuaScript;

/**
 * The reentrant lock's scripts, read and digested once. Their header comments state their
 * {@code KEYS}, {@code ARGV} and replies.
 */
final class LockScripts {

	static final LuaScript ACQUIRE = LuaScript.load(LockScripts.class, "lock-acquire.lua");

	static final LuaScript RELEASE = LuaScript.load(LockScripts.class, "lock-release.lua");

	static final LuaScript RENEW = LuaScript.load(LockScripts.class, "lock-renew.lua");

	static final LuaScript FORCE_RELEASE = LuaScript.load(LockScripts.class, "lock-force-release.lua");

	private LockScripts() {
	}

}
