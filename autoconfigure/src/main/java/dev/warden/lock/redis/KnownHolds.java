package dev.warden.lock.redis;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.warden.redis.RedisEngine;
import org.jspecify.annotations.Nullable;

/**
 * The holds this client knows its owners have, per lock and owner, and the ones they may have
 * without knowing. An acquisition whose reply is lost (a reset connection, a timeout) may have
 * taken a hold in Redis while its caller saw a failure; a caller that then retries re-enters that
 * hidden hold, and its one unlock leaves the lock held, renewed by the watchdog for the life of the
 * client. So after a lost reply the owner's next successful acquisition of the lock, or its next
 * release, first trims its hold count in Redis to the count known here ({@code hold-trim.lua}).
 * <p>
 * A count is known from the replies: an acquisition adds one, a release takes one, a release that
 * frees the lock ends it. An entry lasts while its holds can: until its lease runs out, or, under
 * the watchdog, until its renewal stops. Entries past their lease are dropped as new ones come, so
 * the map holds about as many entries as there are live holds.
 * <p>
 * The trim assumes that an owner does not acquire a lock from two threads at once while a reply of
 * it is lost: a hold still in flight is not counted yet.
 */
final class KnownHolds {

	/** The deadline of holds the watchdog renews: they last until their renewal stops. */
	private static final long RENEWED = Long.MAX_VALUE;

	/** How many entries may pile up before those past their lease are looked for. */
	private static final int PURGE_ABOVE = 1_024;

	private final Map<Key, Entry> entries = new ConcurrentHashMap<>();

	private final RedisEngine engine;

	private volatile int purgeAt = PURGE_ABOVE;

	KnownHolds(RedisEngine engine) {
		this.engine = engine;
	}

	private record Key(String holdField, String lockName) {
	}

	/** One owner's holds of one lock. Guarded by the map's compute. */
	private static final class Entry {

		int count;

		/** When the holds end unless renewed, by {@link System#nanoTime()}; {@link #RENEWED} under the watchdog. */
		long deadline;

		/** Whether a reply of this owner on this lock was lost since the count was last trimmed. */
		volatile boolean unknown;

		boolean endedBy(long now) {
			return deadline != RENEWED && now - deadline >= 0;
		}

	}

	private static Key key(LockLayout layout, String ownerId) {
		return new Key(layout.holdField(ownerId), layout.name);
	}

	private static long deadline(long leaseMillis, boolean renewed) {
		return renewed ? RENEWED : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
	}

	/**
	 * An acquisition succeeded.
	 * @param leaseMillis its lease
	 * @param renewed whether the watchdog renews it
	 * @return the count to trim Redis to before the hold is used, when a reply was lost since the
	 * last trim; 0 otherwise
	 */
	int acquired(LockLayout layout, String ownerId, long leaseMillis, boolean renewed) {
		int[] trimTo = new int[1];
		long now = System.nanoTime();
		entries.compute(key(layout, ownerId), (key, entry) -> {
			Entry held = (entry == null || entry.endedBy(now)) ? new Entry() : entry;
			held.count++;
			long until = deadline(leaseMillis, renewed);
			held.deadline = (held.deadline == RENEWED || until == RENEWED) ? RENEWED : Math.max(held.deadline, until);
			if (entry != null && entry.unknown) {
				held.unknown = false;
				trimTo[0] = held.count;
			}
			return held;
		});
		purgeIfLarge();
		return trimTo[0];
	}

	/**
	 * The reply to an acquisition was lost: it may hold the lock, unknown to its caller.
	 * @param leaseMillis how long such a hidden hold can last
	 */
	void acquisitionUnknown(LockLayout layout, String ownerId, long leaseMillis) {
		long now = System.nanoTime();
		entries.compute(key(layout, ownerId), (key, entry) -> {
			Entry held = (entry == null || entry.endedBy(now)) ? new Entry() : entry;
			held.unknown = true;
			if (held.deadline != RENEWED) {
				held.deadline = Math.max(held.deadline, deadline(leaseMillis, false));
			}
			return held;
		});
		purgeIfLarge();
	}

	/**
	 * Before a release: the count to trim Redis to first, when a reply was lost since the last
	 * trim and the owner knows of holds; 0 otherwise.
	 */
	int beforeRelease(LockLayout layout, String ownerId) {
		Entry known = entries.get(key(layout, ownerId));
		if (known == null || !known.unknown) {
			// The common case, without taking the entry's lock.
			return 0;
		}
		int[] trimTo = new int[1];
		entries.computeIfPresent(key(layout, ownerId), (key, entry) -> {
			if (entry.unknown && entry.count > 0) {
				entry.unknown = false;
				trimTo[0] = entry.count;
			}
			return entry;
		});
		return trimTo[0];
	}

	/**
	 * A release was applied.
	 * @param freed whether it was the owner's last hold
	 */
	void released(LockLayout layout, String ownerId, boolean freed) {
		if (freed) {
			forget(layout, ownerId);
			return;
		}
		entries.computeIfPresent(key(layout, ownerId), (key, entry) -> {
			entry.count--;
			return (entry.count > 0 || entry.unknown) ? entry : null;
		});
	}

	/**
	 * The reply to a release was lost: the hold counts as released, and whatever Redis still has
	 * beyond the rest is trimmed at the owner's next acquisition or release. The watchdog has stopped
	 * renewing the owner's holds, so they last one more lease at most.
	 * @param leaseMillis the watchdog timeout
	 */
	void releaseUnknown(LockLayout layout, String ownerId, long leaseMillis) {
		entries.computeIfPresent(key(layout, ownerId), (key, entry) -> {
			entry.count = Math.max(0, entry.count - 1);
			entry.unknown = true;
			if (entry.deadline == RENEWED) {
				entry.deadline = deadline(leaseMillis, false);
			}
			return entry;
		});
	}

	/** How many holds of the lock {@code ownerId} is known to have; 0 when none (or they ended). */
	int known(LockLayout layout, String ownerId) {
		Entry known = entries.get(key(layout, ownerId));
		return (known == null || known.endedBy(System.nanoTime())) ? 0 : known.count;
	}

	/** The owner holds the lock no more (released, lost, or never held after all). */
	void forget(LockLayout layout, String ownerId) {
		entries.remove(key(layout, ownerId));
	}

	/**
	 * Whether a reply of an acquisition by {@code ownerId} of this lock was lost, so a hold of the
	 * owner found in Redis may be that acquisition's.
	 */
	boolean replyLost(LockLayout layout, String ownerId) {
		Entry known = entries.get(key(layout, ownerId));
		return known != null && known.unknown;
	}

	/** No owner holds the lock any more (a force unlock). */
	void forgetAll(String lockName) {
		entries.keySet().removeIf(key -> key.lockName().equals(lockName));
	}

	/**
	 * Trims the owner's hold count in Redis to {@code count}.
	 * @return completes when Redis has applied it, with how many hidden holds were dropped
	 */
	CompletableFuture<@Nullable Long> trim(LockLayout layout, String ownerId, int count) {
		return layout.trimHolds(engine, ownerId, count);
	}

	/** How many entries are kept. */
	int size() {
		return entries.size();
	}

	private void purgeIfLarge() {
		if (entries.size() <= purgeAt) {
			return;
		}
		long now = System.nanoTime();
		entries.values().removeIf(entry -> entry.endedBy(now));
		// Live holds above the threshold: look again only once as many more have come.
		purgeAt = Math.max(PURGE_ABOVE, 2 * entries.size());
	}

}
