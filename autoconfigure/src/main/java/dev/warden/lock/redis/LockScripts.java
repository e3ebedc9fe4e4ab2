package dev.warden.lock.redis;

import dev.warden.redis.LuaScript;

/**
 * The synchronizers' scripts, read and digested once. Their header comments state their
 * {@code KEYS}, {@code ARGV} and replies.
 */
final class LockScripts {

	/** The helper of the scripts that hand out fencing tokens. */
	private static final String FENCING_TOKEN = "fencing-token.lua";

	/** The helper of the release scripts of the locks that can be handed over. */
	private static final String LOCK_HOLD = "lock-hold.lua";

	/** The helper of the fair lock's scripts that drop the waiters whose place timed out. */
	private static final String FAIR_QUEUE = "fair-queue.lua";

	private static final String CLOCK = LuaScript.CLOCK;

	static final LuaScript ACQUIRE = LuaScript.load(LockScripts.class, "lock-acquire.lua", FENCING_TOKEN);

	static final LuaScript RELEASE = LuaScript.load(LockScripts.class, "lock-release.lua", LOCK_HOLD,
			FENCING_TOKEN);

	static final LuaScript RENEW = LuaScript.load(LockScripts.class, "lock-renew.lua");

	static final LuaScript TRIM = LuaScript.load(LockScripts.class, "hold-trim.lua");

	static final LuaScript FORCE_RELEASE = LuaScript.load(LockScripts.class, "lock-force-release.lua");

	static final LuaScript SIMPLE_ACQUIRE = LuaScript.load(LockScripts.class, "simple-acquire.lua");

	static final LuaScript SIMPLE_RELEASE = LuaScript.load(LockScripts.class, "simple-release.lua");

	static final LuaScript SIMPLE_RENEW = LuaScript.load(LockScripts.class, "simple-renew.lua");

	static final LuaScript FAIR_ACQUIRE = LuaScript.load(LockScripts.class, "fair-acquire.lua", CLOCK, FAIR_QUEUE,
			FENCING_TOKEN);

	static final LuaScript FAIR_RELEASE = LuaScript.load(LockScripts.class, "fair-release.lua", CLOCK, FAIR_QUEUE,
			LOCK_HOLD, FENCING_TOKEN);

	static final LuaScript FAIR_FORCE_RELEASE = LuaScript.load(LockScripts.class, "fair-force-release.lua", CLOCK,
			FAIR_QUEUE);

	static final LuaScript FAIR_LEAVE = LuaScript.load(LockScripts.class, "fair-leave.lua");

	static final LuaScript READ_ACQUIRE = LuaScript.load(LockScripts.class, "read-acquire.lua");

	static final LuaScript READ_RELEASE = LuaScript.load(LockScripts.class, "read-release.lua");

	static final LuaScript READ_RENEW = LuaScript.load(LockScripts.class, "read-renew.lua");

	static final LuaScript WRITE_ACQUIRE = LuaScript.load(LockScripts.class, "write-acquire.lua", FENCING_TOKEN);

	static final LuaScript WRITE_RELEASE = LuaScript.load(LockScripts.class, "write-release.lua");

	static final LuaScript MODE_FORCE_RELEASE = LuaScript.load(LockScripts.class, "mode-force-release.lua");

	static final LuaScript PERMIT_ACQUIRE = LuaScript.load(LockScripts.class, "permit-acquire.lua", CLOCK);

	static final LuaScript PERMIT_RELEASE = LuaScript.load(LockScripts.class, "permit-release.lua", CLOCK);

	static final LuaScript PERMIT_AVAILABLE = LuaScript.load(LockScripts.class, "permit-available.lua", CLOCK);

	static final LuaScript SEMAPHORE_ACQUIRE = LuaScript.load(LockScripts.class, "semaphore-acquire.lua");

	static final LuaScript SEMAPHORE_RELEASE = LuaScript.load(LockScripts.class, "semaphore-release.lua");

	static final LuaScript SEMAPHORE_SET_PERMITS = LuaScript.load(LockScripts.class, "semaphore-set-permits.lua");

	static final LuaScript LATCH_SET_COUNT = LuaScript.load(LockScripts.class, "latch-set-count.lua");

	static final LuaScript LATCH_COUNT_DOWN = LuaScript.load(LockScripts.class, "latch-count-down.lua");

	private LockScripts() {
	}

}
