package dev.warden.redis;

import java.util.function.Predicate;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;

/**
 * A bounded walk over the keys that match a pattern, with {@code SCAN} (on every master of a
 * cluster): for operators' views, never for hot paths, since its cost grows with the keyspace.
 */
public final class KeyScan {

	/** How many keys one {@code SCAN} call looks at. */
	private static final int COUNT = 1_000;

	/** How many {@code SCAN} calls one walk makes at most. */
	private static final int MAX_CALLS = 100_000;

	private KeyScan() {
	}

	/**
	 * Hands each matching key to {@code visitor} until it returns {@code false} or the keyspace has
	 * been walked.
	 * @param engine the client's engine
	 * @param pattern a {@code SCAN MATCH} pattern
	 * @param action what the walk is for, for a failure's message
	 * @param visitor told each key; {@code false} ends the walk
	 */
	public static void scan(RedisEngine engine, String pattern, String action, Predicate<String> visitor) {
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(COUNT);
		KeyScanCursor<String> cursor = engine.await(engine.commands().scan(args), action);
		for (int calls = 1; calls <= MAX_CALLS; calls++) {
			for (String key : cursor.getKeys()) {
				if (!visitor.test(key)) {
					return;
				}
			}
			if (cursor.isFinished()) {
				return;
			}
			cursor = engine.await(engine.commands().scan(cursor, args), action);
		}
	}

	/** {@code text} with the characters a {@code SCAN} pattern treats specially escaped. */
	public static String escape(String text) {
		StringBuilder escaped = new StringBuilder(text.length());
		for (char c : text.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
