package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * Redisson's fair {@code RLock}: the reentrant hash plus a queue of waiters with deadlines; a
 * release wakes only the first waiter, on its own channel.
 */
final class FairLayout extends LockLayout.HandingOver {

	/** The prefix of every fair lock's queue of waiters, Redisson's. */
	static final String QUEUE_PREFIX = "redisson_lock_queue";

	/** The prefix of every fair lock's zset of waiter deadlines, Redisson's. */
	static final String TIMEOUT_PREFIX = "redisson_lock_timeout";

	private final String[] queueKeys;

	private final String[] allKeys;

	/** The acquire and release scripts': the lock, the queue, the deadlines and the fencing counter. */
	private final String[] scriptKeys;

	/** How long a waiter keeps its place once its turn could have come, in ms, as the scripts take it. */
	private final String waiterTimeoutArg;

	FairLayout(String name, long waiterTimeoutMillis, KeyNamespace namespace) {
		super(name, RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}", namespace);
		String queue = QUEUE_PREFIX + ":{" + name + "}";
		String timeouts = TIMEOUT_PREFIX + ":{" + name + "}";
		this.queueKeys = new String[] { queue, timeouts };
		this.allKeys = new String[] { name, queue, timeouts };
		this.scriptKeys = new String[] { name, queue, timeouts, acquireKeys[1] };
		this.waiterTimeoutArg = Long.toString(waiterTimeoutMillis);
	}

	@Override
	String waitChannel(String ownerId) {
		return channel + ":" + ownerId;
	}

	@Override
	Supplier<LockWaiters> waiters() {
		// Only this waiter listens on its channel: every message is its turn.
		return () -> new LockWaiters(message -> 1);
	}

	@Override
	void waiterArrived(HandOvers handOvers, String ownerId) {
		// Its place among this client's waiters, for hand-overs.
		handOvers.fairWaiterArrived(name, ownerId);
	}

	@Override
	void waiterLeft(HandOvers handOvers, String ownerId) {
		handOvers.fairWaiterLeft(name, ownerId);
	}

	/**
	 * Only the first in the queue can take it over, so no one is starved: this client's longest
	 * waiter, on its own channel. The queue decides, so there is no limit on hand-overs in a row.
	 */
	@Override
	@Nullable LockWaiters handOverCandidates(RedisEngine engine, HandOvers handOvers) {
		String first = handOvers.firstFairWaiter(name);
		return (first != null) ? engine.subscriptions().listener(waitChannel(first), LockWaiters.class) : null;
	}

	@Override
	void handedOver(HandOvers handOvers) {
	}

	@Override
	CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken) {
		return engine.eval(LockScripts.FAIR_ACQUIRE, ScriptOutputType.INTEGER, scriptKeys,
				Long.toString(leaseMillis), ownerId, waiterTimeoutArg, flag(willWait), withToken);
	}

	@Override
	CompletableFuture<@Nullable Long> releaseScript(RedisEngine engine, String ownerId, String nextOwner,
			long nextLeaseMillis, String nextTakesToken) {
		return engine.eval(LockScripts.FAIR_RELEASE, ScriptOutputType.INTEGER, scriptKeys, ownerId, channel,
				nextOwner, Long.toString(nextLeaseMillis), waiterTimeoutArg, nextTakesToken);
	}

	@Override
	CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
		return engine.eval(LockScripts.FAIR_FORCE_RELEASE, ScriptOutputType.INTEGER, allKeys, channel);
	}

	@Override
	CompletableFuture<?> abandon(RedisEngine engine, String ownerId) {
		return engine.eval(LockScripts.FAIR_LEAVE, ScriptOutputType.INTEGER, queueKeys, ownerId,
				waiterTimeoutArg);
	}

}
