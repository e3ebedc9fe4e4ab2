package dev.warden.task.redis;

import java.time.Duration;
import java.time.Instant;

import dev.warden.task.PayloadCodec;
import org.jspecify.annotations.Nullable;

/**
 * The checks of what a schedule stores, made before anything is sent: the delay or due time, and
 * the payload, which must be written, small enough, and readable back.
 */
final class ScheduleArguments {

	/** The longest delay a task may be scheduled with. */
	static final Duration MAX_DELAY = Duration.ofDays(36_500);

	/** The latest due time: the end of year 9999, whose milliseconds a sorted-set score holds exactly. */
	static final Instant LATEST_DUE = Instant.parse("9999-12-31T23:59:59.999Z");

	private ScheduleArguments() {
	}

	static long delayMillis(@Nullable Duration delay) {
		if (delay == null || delay.isNegative()) {
			throw new IllegalArgumentException("The delay must not be null or negative: " + delay);
		}
		if (delay.compareTo(MAX_DELAY) > 0) {
			throw new IllegalArgumentException("The delay must be at most " + MAX_DELAY.toDays() + " days: " + delay);
		}
		return delay.toMillis();
	}

	static long dueMillis(@Nullable Instant dueAt) {
		if (dueAt == null) {
			throw new IllegalArgumentException("The due time must not be null");
		}
		if (dueAt.isAfter(LATEST_DUE)) {
			throw new IllegalArgumentException("The due time must not be after " + LATEST_DUE + ": " + dueAt);
		}
		// A due time long past means now; bounded so that the millisecond count cannot overflow.
		return dueAt.isBefore(Instant.EPOCH) ? 0 : dueAt.toEpochMilli();
	}

	/**
	 * The payload as stored, refused before anything is written when it is {@code null}, cannot be
	 * written, is larger than {@code limit} UTF-8 bytes, or cannot be read back: such a task could
	 * only ever become a dead letter.
	 */
	static <T> String encode(PayloadCodec<T> codec, String queue, String taskId, @Nullable T payload, int limit) {
		if (payload == null) {
			throw new IllegalArgumentException("The payload of task '" + taskId + "' of queue '" + queue
					+ "' must not be null");
		}
		String encoded;
		try {
			encoded = codec.encode(payload);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("The payload of task '" + taskId + "' of queue '" + queue
					+ "' cannot be written: " + ex.getMessage() + "; nothing was scheduled", ex);
		}
		// A char is at most three UTF-8 bytes: count the bytes only when they could exceed the limit.
		if (encoded.length() > limit / 3) {
			long bytes = utf8Length(encoded);
			if (bytes > limit) {
				throw new IllegalArgumentException("The payload of task '" + taskId + "' of queue '" + queue + "' is "
						+ bytes + " bytes, more than the " + limit + " allowed (warden.delayed-task.max-payload-size); "
						+ "nothing was scheduled. Store large data elsewhere and schedule its key");
			}
		}
		try {
			codec.decode(encoded);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("The payload of task '" + taskId + "' of queue '" + queue
					+ "' cannot be read back: " + ex.getMessage() + "; nothing was scheduled", ex);
		}
		return encoded;
	}

	private static long utf8Length(String text) {
		long bytes = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < 0x80) {
				bytes++;
			}
			else if (c < 0x800) {
				bytes += 2;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				bytes += 4;
				i++;
			}
			else {
				bytes += 3;
			}
		}
		return bytes;
	}

}
