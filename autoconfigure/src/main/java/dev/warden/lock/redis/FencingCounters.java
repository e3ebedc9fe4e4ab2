package dev.warden.lock.redis;

import io.lettuce.core.cluster.SlotHash;

/**
 * Where fencing tokens come from: one counter per Redis Cluster hash slot, shared by every lock
 * name in that slot, so that a token stays strictly increasing per lock name (any counter only ever
 * grows) while the counters Warden leaves in Redis are at most {@value SlotHash#SLOT_COUNT},
 * however many distinct names are locked. The counter of a lock is in the lock's own slot, as a
 * script's keys must be on Redis Cluster: {@code warden_fencing:{<tag>}}, where the tag is a short
 * string chosen once per slot whose hash slot is that slot. On a standalone Redis the slots only
 * spread the counters.
 */
final class FencingCounters {

	/** The prefix of every counter's key. */
	static final String KEY_PREFIX = "warden_fencing:";

	private FencingCounters() {
	}

	/**
	 * The key of the counter of a lock's tokens.
	 * @param lockName the lock's Redis key
	 * @return the counter's key, in the lock's hash slot
	 */
	static String keyOf(String lockName) {
		return Tags.KEYS[SlotHash.getSlot(lockName)];
	}

	/** The counter key of every slot, computed once: the first base-36 number found in each slot. */
	private static final class Tags {

		static final String[] KEYS = new String[SlotHash.SLOT_COUNT];

		static {
			int found = 0;
			for (int i = 0; found < KEYS.length; i++) {
				String tag = Integer.toString(i, 36);
				int slot = SlotHash.getSlot(tag);
				if (KEYS[slot] == null) {
					KEYS[slot] = KEY_PREFIX + "{" + tag + "}";
					found++;
				}
			}
		}

	}

}
