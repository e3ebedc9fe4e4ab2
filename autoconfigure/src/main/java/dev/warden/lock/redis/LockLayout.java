package dev.warden.lock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.warden.lock.LockArguments;
import dev.warden.redis.KeyNamespace;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * How one kind of lock lives in Redis and what is particular about waiting for it: its scripts,
 * its release channel, the hash field that counts an owner's holds, how its messages wake this
 * client's waiters, what a waiter does when it arrives and leaves (a fair waiter keeps a place in
 * a queue), and which of this client's waiters a release may hand it to. The kinds are
 * {@link ReentrantLayout}, {@link FairLayout}, {@link ReadLayout}, {@link WriteLayout} and
 * {@link SimpleLayout}; {@link ExclusiveLock} does the rest (the thread-bound and owner-bound API, the watchdog),
 * {@link Acquisition} the waiting and {@link LockRelease} the release, the same way for every kind.
 */
abstract class LockLayout {

	final String name;

	final String channel;

	final String[] keys;

	/** The lock and its fencing counter, for the acquire scripts. */
	final String[] acquireKeys;

	/**
	 * @param name the lock's name and Redis key
	 * @param channel its release channel
	 * @param namespace the client's namespace, whose fencing counters the lock's tokens come from
	 */
	LockLayout(String name, String channel, KeyNamespace namespace) {
		this.name = LockArguments.requireName(name, "lock");
		this.channel = channel;
		this.keys = new String[] { name };
		this.acquireKeys = new String[] { name, namespace.fencingKey(name) };
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
		return Contender.DONE;
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
	final CompletableFuture<Contender.Try<Long>> acquire(RedisEngine engine, String ownerId, long leaseMillis,
			boolean willWait, boolean withToken) {
		return RedisEngine.map(acquireScript(engine, ownerId, leaseMillis, willWait, flag(withToken)), this::attempt);
	}

	/**
	 * The retry time of a failed try whose owner already holds a lock that is not reentrant: the
	 * acquisition ends at once with an error (a real time to live is never below -1).
	 */
	static final long HELD_BY_ASKER = -2;

	/**
	 * An acquire script's reply: the fencing token ({@code >= 0}) when acquired, otherwise
	 * {@code -2 - ttl} ({@code < 0}).
	 */
	Contender.Try<Long> attempt(@Nullable Long reply) {
		if (reply == null) {
			throw new IllegalStateException("No acquire reply");
		}
		return (reply >= 0) ? Contender.Try.succeeded(reply) : Contender.Try.failed(-2 - reply);
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

	/**
	 * Whether a release lets in one waiter at most, and waiters share one channel: then a release
	 * heard while no waiter slept is owed to one waiter only. Not so for a read-write lock (a
	 * released write lock lets in every reader) or a fair lock (each waiter has its own channel).
	 * A simple lock says no too: it hands nothing over, and a waiter's second try is what lets a
	 * thread that just released take the lock again at once, which keeps a hot simple lock busy.
	 */
	boolean oneWaiterPerRelease() {
		return false;
	}

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

	/** The watchdog's renewal: 1 renewed, 0 no longer held. Most kinds renew the hash's lease. */
	CompletableFuture<@Nullable Long> renew(RedisEngine engine, String ownerId, long leaseMillis) {
		return engine.eval(LockScripts.RENEW, ScriptOutputType.INTEGER, keys, Long.toString(leaseMillis),
				holdField(ownerId));
	}

	/** How many holds {@code ownerId} has in Redis: the value of its hold field. */
	CompletableFuture<Integer> holdCount(RedisEngine engine, String ownerId) {
		return engine.commands(name)
			.hget(name, holdField(ownerId))
			.toCompletableFuture()
			.thenApply(count -> (count != null) ? Integer.parseInt(count) : 0);
	}

	/**
	 * Trims {@code ownerId}'s hold count in Redis to {@code knownCount}, dropping holds taken by
	 * acquisitions whose reply was lost: how many were dropped.
	 */
	CompletableFuture<@Nullable Long> trimHolds(RedisEngine engine, String ownerId, int knownCount) {
		return engine.eval(LockScripts.TRIM, ScriptOutputType.INTEGER, keys, holdField(ownerId),
				Integer.toString(knownCount));
	}

	/** Deletes the lock whoever holds it: 1 when it was held. */
	abstract CompletableFuture<@Nullable Long> forceRelease(RedisEngine engine);

	/** Whether anyone holds the lock (in this layout's sense). */
	CompletableFuture<Boolean> isLocked(RedisEngine engine) {
		return engine.commands(name).exists(name).toCompletableFuture().thenApply(count -> count != null && count > 0);
	}

	/**
	 * A kind whose release can hand the lock to a waiter of the releasing client: one release
	 * script serves both, a plain release naming no next owner.
	 */
	abstract static class HandingOver extends LockLayout {

		HandingOver(String name, String channel, KeyNamespace namespace) {
			super(name, channel, namespace);
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

}
