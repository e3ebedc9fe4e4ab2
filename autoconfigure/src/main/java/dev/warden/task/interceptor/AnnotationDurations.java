package dev.warden.task.interceptor;

import java.time.Duration;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/**
 * Durations written in annotation attributes ({@code @DelayedTask}'s {@code delay}, {@code backoff},
 * {@code visibilityTimeout}; {@code @RecurringTask}'s {@code fixedRate}, {@code fixedDelay},
 * {@code initialDelay}; {@code @RateLimited}'s {@code period} and {@code waitTime}; {@code @TaskLimit}'s
 * {@code period}), read as Spring Boot reads a {@code Duration} property without
 * {@code @DurationUnit} ({@code DurationStyle.detectAndParse}), after the {@code ${...}} placeholders
 * are resolved and the surrounding whitespace is trimmed. Exactly these two forms:
 * <ul>
 * <li>Simple: an optional sign, decimal digits, and an optional unit, {@code ns}, {@code us},
 * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}, in any case: {@code 500ms}, {@code 30s},
 * {@code 1m}, {@code 2h}, {@code 14d}, {@code 1H}. Without a unit, milliseconds: {@code 30} is 30 ms,
 * not 30 s. {@code m} and {@code M} are minutes, never months. No fraction ({@code 1.5h}: write
 * {@code 90m}), no space ({@code 10 s}), no underscore ({@code 1_000ms}), no week ({@code 1w}), and
 * at most what a {@code long} of the unit holds.</li>
 * <li>ISO-8601, as {@link Duration#parse(CharSequence)} reads it, in any case and with an optional
 * sign: {@code PT30M}, {@code PT0.5S}, {@code P2D}, {@code P1DT2H}, {@code -PT5M}; days are its
 * largest unit ({@code P1W}, {@code P1M} and {@code P1Y} are refused).</li>
 * </ul>
 * A negative duration is read; the attribute refuses it where it must not be negative or zero.
 */
public final class AnnotationDurations {

	private AnnotationDurations() {
	}

	/**
	 * Resolves the placeholders of {@code text} and reads the duration, in one of the forms the class
	 * lists.
	 * @param placeholders resolves {@code ${...}}
	 * @param where the annotation and its method, for messages
	 * @param attribute the attribute's name, for messages
	 * @param text the attribute's value
	 * @return the duration
	 * @throws IllegalStateException naming the attribute when it is not a duration
	 */
	public static Duration parse(PropertyResolver placeholders, String where, String attribute, String text) {
		String resolved;
		try {
			resolved = placeholders.resolveRequiredPlaceholders(text);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + text + "': " + ex.getMessage(), ex);
		}
		try {
			return DurationStyle.detectAndParse(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + " has " + attribute + " '" + text + "'"
					+ (resolved.equals(text) ? "" : " (resolved to '" + resolved + "')")
					+ " that is not a duration such as 30m, 500ms or PT30M", ex);
		}
	}

}
