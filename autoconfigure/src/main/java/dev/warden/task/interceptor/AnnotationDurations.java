package dev.warden.task.interceptor;

import java.time.Duration;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/** Durations written in annotation attributes: {@code 30m}, {@code 500ms}, {@code PT30M} or a placeholder. */
public final class AnnotationDurations {

	private AnnotationDurations() {
	}

	/**
	 * Resolves the placeholders of {@code text} and reads the duration.
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
