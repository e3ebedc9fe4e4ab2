package dev.warden.redis;

import dev.warden.WardenNames;
import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * The namespace of every key and channel Warden names itself, so that two applications sharing
 * one Redis can be kept apart by Redis ACLs. With namespace {@code <ns>} ({@value #DEFAULT} unless
 * configured otherwise):
 * <ul>
 * <li>delayed queues, their channels and recurring plans: {@code <ns>:task:{<queue>}:…};</li>
 * <li>rate limiters: {@code <ns>:rate:{<name>}};</li>
 * <li>the fencing counters of locks: {@code <ns>_fencing:{<tag>}}, one per hash slot;</li>
 * <li>the test clock's offset: {@code <ns>:test:clock-offset};</li>
 * <li>the default prefix of {@code @DistributedLock} locks: {@code <ns>:lock:}.</li>
 * </ul>
 * The namespace {@value #DEFAULT} gives the keys Warden has always used. The names given to the
 * lock factory ({@code Warden.getLock(name)} and the other lock kinds) are not in it: they are the
 * keys as given, as Redisson names them.
 */
public final class KeyNamespace {

	/** The namespace when none is configured: Warden's keys as they always were. */
	public static final String DEFAULT = "warden";

	/** The longest namespace accepted. */
	public static final int MAX_LENGTH = 64;

	/** The default namespace, {@value #DEFAULT}. */
	public static final KeyNamespace WARDEN = new KeyNamespace(DEFAULT);

	private final String name;

	private final String taskPrefix;

	private final String ratePrefix;

	private final String fencingPrefix;

	private final String clockOffsetKey;

	/** The fencing counter of each hash slot, made on first use. */
	private volatile String @Nullable [] fencingKeys;

	private KeyNamespace(String name) {
		this.name = name;
		this.taskPrefix = name + ":task:";
		this.ratePrefix = name + ":rate:";
		this.fencingPrefix = name + "_fencing:";
		this.clockOffsetKey = name + ":test:clock-offset";
	}

	/**
	 * The namespace of that name.
	 * @param name the namespace
	 * @return the namespace
	 * @throws IllegalArgumentException when the name is not a valid namespace (see {@link #check})
	 */
	public static KeyNamespace of(String name) {
		return DEFAULT.equals(name) ? WARDEN : new KeyNamespace(check("namespace", name));
	}

	/**
	 * Checks a namespace: not empty, at most {@value #MAX_LENGTH} characters, ASCII letters, digits,
	 * {@code -} and {@code .} only. Nothing else is needed to tell applications apart, and anything
	 * else could let one application's keys or ACL patterns reach another's: braces would move its
	 * keys' hash tags, {@code * ? [ ] \} are special in {@code SCAN} patterns and ACL rules, and with
	 * {@code :} or {@code _} the namespace {@code app:prod} or {@code app_fencing} would fall under
	 * the ACL patterns {@code ~app:*} and {@code ~app_fencing:*} of the namespace {@code app}.
	 * @param property the name of the setting, for the message
	 * @param name the namespace
	 * @return the namespace
	 * @throws IllegalArgumentException saying what is wrong, naming {@code property}
	 */
	public static String check(String property, @Nullable String name) {
		if (name == null || name.isEmpty()) {
			throw new IllegalArgumentException(property + " must not be empty: it starts every key Warden writes "
					+ "(default '" + DEFAULT + "')");
		}
		if (name.length() > MAX_LENGTH) {
			throw new IllegalArgumentException(property + " must be at most " + MAX_LENGTH + " characters long, not "
					+ name.length() + ": '" + WardenNames.shown(name) + "'");
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '.';
			if (!allowed) {
				throw new IllegalArgumentException(property + " must hold only ASCII letters, digits, '-' and '.', "
						+ "so that no other namespace falls under its keys' patterns, but '" + WardenNames.shown(name)
						+ "' has " + (Character.isISOControl(c) || Character.isWhitespace(c)
								? String.format("U+%04X", (int) c) : "'" + c + "'")
						+ " at index " + i);
			}
		}
		return name;
	}

	/** The namespace itself, {@value #DEFAULT} by default. */
	public String name() {
		return name;
	}

	/** The prefix of every delayed queue's keys and channels: {@code <ns>:task:}. */
	public String taskPrefix() {
		return taskPrefix;
	}

	/** The prefix of every rate limiter's key: {@code <ns>:rate:}. */
	public String ratePrefix() {
		return ratePrefix;
	}

	/** The prefix of the locks' fencing counters: {@code <ns>_fencing:}. */
	public String fencingPrefix() {
		return fencingPrefix;
	}

	/** The key of the test clock's offset: {@code <ns>:test:clock-offset}. */
	public String clockOffsetKey() {
		return clockOffsetKey;
	}

	/** The default prefix of the {@code @DistributedLock} locks' keys: {@code <ns>:lock:}. */
	public String lockKeyPrefix() {
		return name + ":lock:";
	}

	/**
	 * The key of the counter of a lock's fencing tokens: {@code <ns>_fencing:{<tag>}}, where the tag
	 * is a short string chosen once per slot whose hash slot is the lock's.
	 * @param lockName the lock's Redis key
	 * @return the counter's key, in the lock's hash slot
	 */
	public String fencingKey(String lockName) {
		String[] keys = fencingKeys;
		if (keys == null) {
			keys = new String[SlotHash.SLOT_COUNT];
			for (int slot = 0; slot < keys.length; slot++) {
				keys[slot] = fencingPrefix + "{" + SlotTags.TAGS[slot] + "}";
			}
			fencingKeys = keys;
		}
		return keys[SlotHash.getSlot(lockName)];
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof KeyNamespace namespace && name.equals(namespace.name);
	}

	@Override
	public int hashCode() {
		return name.hashCode();
	}

	@Override
	public String toString() {
		return name;
	}

	/** A tag of every slot, computed once: the first base-36 number found in each slot. */
	private static final class SlotTags {

		static final String[] TAGS = new String[SlotHash.SLOT_COUNT];

		static {
			int found = 0;
			for (int i = 0; found < TAGS.length; i++) {
				String tag = Integer.toString(i, 36);
				int slot = SlotHash.getSlot(tag);
				if (TAGS[slot] == null) {
					TAGS[slot] = tag;
					found++;
				}
			}
		}

	}

}
