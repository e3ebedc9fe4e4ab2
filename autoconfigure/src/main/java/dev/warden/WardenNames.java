package dev.warden;

/**
 * The check every name Warden puts into a Redis key and a log line passes first: lock, semaphore,
 * latch and rate limiter names, queue names and task ids. Names often come from user input (a lock
 * key over a request's argument, a queue name in an operator's URL), so a name must hold no control
 * character — a newline in it would let the input write a line of its own into the log — and stay
 * within {@link #MAX_LENGTH} characters.
 */
public final class WardenNames {

	/** The longest name, in characters. */
	public static final int MAX_LENGTH = 1024;

	/** How much of a refused name a message shows. */
	private static final int SHOWN = 100;

	private WardenNames() {
	}

	/**
	 * Checks that a name holds no control character (C0, DEL, C1, or the Unicode line and paragraph
	 * separators) and has at most {@link #MAX_LENGTH} characters. Blankness and braces are the
	 * callers' own checks.
	 * @param name the name, not {@code null}
	 * @param what what it is, for the message: {@code lock name}, {@code queue name}, {@code task id}
	 * @return the name
	 * @throws IllegalArgumentException naming the problem, with the name escaped and shortened
	 */
	public static String requireSafe(String name, String what) {
		for (int i = 0; i < name.length(); i++) {
			if (isControl(name.charAt(i))) {
				throw new IllegalArgumentException("A " + what + " must not contain control characters such as "
						+ "a line break, since it is written to Redis keys and log lines: '" + shown(name)
						+ "' has " + escape(name.charAt(i)) + " at index " + i);
			}
		}
		if (name.length() > MAX_LENGTH) {
			throw new IllegalArgumentException("A " + what + " must have at most " + MAX_LENGTH + " characters, "
					+ "not " + name.length() + ": '" + shown(name) + "'");
		}
		return name;
	}

	/**
	 * A name as a message may show it: control characters escaped ({@code \n}, {@code \u0085}),
	 * and cut after 100 characters.
	 * @param name any text
	 * @return the text, safe for one log line
	 */
	public static String shown(String name) {
		StringBuilder text = new StringBuilder();
		int end = Math.min(name.length(), SHOWN);
		for (int i = 0; i < end; i++) {
			char c = name.charAt(i);
			text.append(isControl(c) ? escape(c) : String.valueOf(c));
		}
		if (name.length() > SHOWN) {
			text.append("…");
		}
		return text.toString();
	}

	private static boolean isControl(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
	}

	private static String escape(char c) {
		return switch (c) {
			case '\n' -> "\\n";
			case '\r' -> "\\r";
			case '\t' -> "\\t";
			default -> String.format("\\u%04x", (int) c);
		};
	}

}
