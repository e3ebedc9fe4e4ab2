package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * How one kind of lock lives in Redis: its scripts, its release channel, and the hash field that
 * counts an owner's holds. {@link RedisDistributedLock} does the rest (waiting, the watchdog, the
 * thread-bound and owner-bound API) the same way for every kind.
 */
abstract class LockLayout {

	final String name;

	final String channel;

	final String[] keys;

	/** The lock and its fencing counter, for the acquire scripts. */
	final String[] acquireKeys;

	LockLayout(String name, String channel) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A lock name must not be null or blank");
		}
		this.name = name;
		this.channel = channel;
		this.keys = new String[] { name };
		this.acquireKeys = new String[] { name, fencingKey(name) };
	}

	/**
	 * The key of a lock's fencing counter, in the lock's hash slot: the lock name's own hash tag
	 * when it has one, else the whole name as the tag.
	 */
	static String fencingKey(String name) {
		return RedisEngine.sibling(name, ":warden_fencing");
	}

	/** A release script's reply: the releasing owner held nothing. */
	static final long NOT_HELD = -1;

	/** A release script's reply: the releasing owner still holds the lock. */
	static final long STILL_HELD = 0;

	/** A release script's reply: the lock was freed and its waiters told; any positive reply is a hand-over's token. */
	static final long FREED = -2;

	/** A release script's reply: the lock passed to a successor that takes no fencing token. */
	static final long HANDED_OVER = -3;

	/** The hash field that counts {@code ownerId}'s holds. */
	String holdField(String ownerId) {
		return ownerId;
	}

	/** The channel on which {@code ownerId} waits for its turn. */
	String waitChannel(String ownerId) {
		return channel;
	}

	/** A waiter that gave up leaves (a fair lock's queue); nothing for most kinds. */
	CompletableFuture<?> abandon(RedisEngine engine, String ownerId) {
		return CompletableFuture.completedFuture(null);
	}

	/** Whether and how the lock's messages wake this client's waiters. */
	Supplier<LockWaiters> waiters() {
		return LockWaiters::new;
	}

	/** An owner of this client begins to wait for the lock. */
	void waiterArrived(HandOvers handOvers, String ownerId) {
	}

	/** An owner of this client stopped waiting for the lock (acquired or gave up). */
	void waiterLeft(HandOvers handOvers, String ownerId) {
	}

	/**
	 * This client's waiters among which a release may choose one to hand the lock to, or
	 * {@code null} when it must release plainly.
	 */
	@Nullable LockWaiters handOverCandidates(RedisEngine engine, HandOvers handOvers) {
		return null;
	}

	/** The lock was handed to a waiter of this client. */
	void handedOver(HandOvers handOvers) {
	}

	/**
	 * One acquisition: when it succeeds, its fencing token (0 when the kind has none or none was
	 * asked for); when not, the lock's TTL (-1: no expiry).
	 * @param willWait whether the caller will wait if this attempt fails (a fair lock queues it then)
	 * @param withToken whether to take a fencing token: only then is the lock's counter incremented
	 * (and created, for a name never locked with a token before)
	 */
	final CompletableFuture<Acquisition.Try<Long>> acquire(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, boolean withToken) {
		return RedisEngine.map(acquireScript(engine, ownerId, leaseMillis, willWait, flag(withToken)),
				LockLayout::attempt);
	}

	/**
	 * An acquire script's reply: the fencing token ({@code >= 0}) when acquired, otherwise
	 * {@code -2 - ttl} ({@code < 0}).
	 */
	private static Acquisition.Try<Long> attempt(@Nullable Long reply) {
		if (reply == null) {
			throw new IllegalStateException("No acquire reply");
		}
		return (reply >= 0) ? Acquisition.Try.succeeded(reply) : Acquisition.Try.failed(-2 - reply);
	}

	/** A yes/no script argument: {@code "1"} or {@code "0"}. */
	static String flag(boolean yes) {
		return yes ? "1" : "0";
	}

	/** @param withToken {@code "1"} to take a fencing token, {@code "0"} not to */
	abstract CompletableFuture<@Nullable Long> acquireScript(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, String withToken);

	/** One release: {@code null} not held, 0 still held, 1 the owner's last hold released. */
	abstract CompletableFuture<@Nullable Long> release(RedisEngine engine, String ownerId);

	/** Whether a release can hand the lock straight to a waiter of the same client. */
	boolean handsOver() {
		return false;
	}

	/**
	 * One release that, when it frees the lock, hands it to {@code successor} in the same script:
	 * {@link #NOT_HELD}, {@link #STILL_HELD}, the successor's fencing token ({@code > 0}, or
	 * {@link #HANDED_OVER} when it takes none) when handed over, or {@link #FREED} without a
	 * hand-over (the successor was not next).
	 */
	final CompletableFuture<@Nullable Long> handOver(RedisEngine engine, String ownerId,
			LockWaiters.Successor successor) {
		return releaseScript(engine, ownerId, successor.ownerId(), successor.leaseMillis(),
				flag(successor.withToken()));
	}

	/**
	 * The release script of a kind that {@linkplain #handsOver() hands over}, with its replies as
	 * {@link #handOver}'s.
	 * @param nextOwner the owner to hand the lock to, or {@code ""} to release plainly
	 * @param nextLeaseMillis that owner's lease
	 * @param nextTakesToken {@code "1"} when that owner takes a fencing token, {@code "0"} when not
	 */
	CompletableFuture<@Nullable Long> releaseScript(RedisEngine engine, String ownerId, String nextOwner,
			long nextLeaseMillis, String nextTakesToken) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " locks are not handed over");
	}

	/** {@link #release} for a kind that hands over: its release script without a next owner. */
	final CompletableFuture<@Nullable Long> releasePlainly(RedisEngine engine, String ownerId) {
		return RedisEngine.map(releaseScript(engine, ownerId, "", 0, "0"), LockLayout::plainRelease);
	}

	/**
	 * A release script's reply without a hand-over, as {@link #release} answers it:
	 * {@link #NOT_HELD} {@code null}, {@link #STILL_HELD} 0, {@link #FREED} 1.
	 */
	private static @Nullable Long plainRelease(@Nullable Long reply) {
		if (reply == null || reply == NOT_HELD) {
			return null;
		}
		return (reply == STILL_HELD) ? 0L : 1L;
	}

	/** The watchdog's renewal: 1 renewed, 0 no longer held. */
	abstract CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis);

	/** Deletes the lock whoever holds it: 1 when it was held. */
	abstract CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine);

	/** Whether anyone holds the lock (in this layout's sense). */
	CompletableFuture<Boolean> isLocked(RedisEngine engine) {
		return engine.commands().exists(name).toCompletableFuture().thenApply(count -> count != null && count > 0);
	}

	/**
	 * A kind whose release can hand the lock to a waiter of the releasing client: one release
	 * script serves both, a plain release naming no next owner.
	 */
	abstract static class HandingOver extends LockLayout {

		HandingOver(String name, String channel) {
			super(name, channel);
		}

		@Override
		final boolean handsOver() {
			return true;
		}

		/** Any waiter of this client may take it over, unless it was handed over too often in a row. */
		@Override
		@Nullable LockWaiters handOverCandidates(RedisEngine engine, HandOvers handOvers) {
			return handOvers.mayHandOver(name) ? engine.subscriptions().listener(channel, LockWaiters.class) : null;
		}

		@Override
		void handedOver(HandOvers handOvers) {
			handOvers.handedOver(name);
		}

		@Override
		final CompletableFuture<@Nullable Long> release(RedisEngine engine, String ownerId) {
			return releasePlainly(engine, ownerId);
		}

		@Override
		abstract CompletableFuture<@Nullable Long> releaseScript(RedisEngine engine, String ownerId,
				String nextOwner, long nextLeaseMillis, String nextTakesToken);

	}

	/** Redisson's {@code RLock}: a hash of owner ids to hold counts, released with message 0. */
	static final class Reentrant extends HandingOver {

		Reentrant(String name) {
			super(name, RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}");
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
		CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
			return engine.eval(LockScripts.RENEW, ScriptOutputType.INTEGER, keys, Long.toString(leaseMillis), ownerId);
		}

		@Override
		CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
			return engine.eval(LockScripts.FORCE_RELEASE, ScriptOutputType.INTEGER, keys, channel);
		}

	}

	/** The read side of Redisson's {@code RReadWriteLock}. */
	static final class Read extends LockLayout {

		Read(String name) {
			super(name, RedisReadWriteLock.CHANNEL_PREFIX + ":{" + name + "}");
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

		@Override
		CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
			return engine.eval(LockScripts.MODE_FORCE_RELEASE, ScriptOutputType.INTEGER, keys, "read", channel);
		}

		@Override
		CompletableFuture<Boolean> isLocked(RedisEngine engine) {
			return engine.commands().hget(name, "mode").toCompletableFuture().thenApply("read"::equals);
		}

	}

	/** The write side of Redisson's {@code RReadWriteLock}: its release wakes every waiter. */
	static final class Write extends LockLayout {

		Write(String name) {
			super(name, RedisReadWriteLock.CHANNEL_PREFIX + ":{" + name + "}");
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

		@Override
		CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
			return engine.eval(LockScripts.RENEW, ScriptOutputType.INTEGER, keys, Long.toString(leaseMillis),
					holdField(ownerId));
		}

		@Override
		CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine) {
			return engine.eval(LockScripts.MODE_FORCE_RELEASE, ScriptOutputType.INTEGER, keys, "write", channel);
		}

		@Override
		CompletableFuture<Boolean> isLocked(RedisEngine engine) {
			return engine.commands().hget(name, "mode").toCompletableFuture().thenApply("write"::equals);
		}

	}

	/**
	 * Redisson's fair {@code RLock}: the reentrant hash plus a queue of waiters with deadlines; a
	 * release wakes only the first waiter, on its own channel.
	 */
	static final class Fair extends HandingOver {

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

		Fair(String name, long waiterTimeoutMillis) {
			super(name, RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}");
			String queue = QUEUE_PREFIX + ":{" + name + "}";
			String timeouts = TIMEOUT_PREFIX + ":{" + name + "}";
			this.queueKeys = new String[] { queue, timeouts };
			this.allKeys = new String[] { name, queue, timeouts };
			this.scriptKeys = new String[] { name, queue, timeouts, fencingKey(name) };
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
		CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
			return engine.eval(LockScripts.RENEW, ScriptOutputType.INTEGER, keys, Long.toString(leaseMillis), ownerId);
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

}
