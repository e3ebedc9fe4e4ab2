package dev.warden.badinput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.test.redis.RedisNode;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The table of {@code docs/bad-input.md}, and the check each of its rows gets: the mistake
 * throws the row's exception with the row's message, and Redis holds afterwards exactly the keys,
 * values and expiries it held before.
 */
final class BadInputCatalogue {

	/** The catalogue, from the module's directory (where the build runs its tests). */
	static final Path FILE = Path.of("..", "docs", "bad-input.md");

	private static final Pattern ROW = Pattern.compile("^\\| ([A-Z]\\d{2}) \\| (.+) \\| `([A-Za-z]+)` \\| `(.+)` \\|$");

	private static final Map<String, Row> ROWS = read();

	private BadInputCatalogue() {
	}

	/** One row: the exception's simple class name and the message's fixed parts, in order. */
	record Row(String id, String exception, List<String> messageParts) {
	}

	static Map<String, Row> rows() {
		return ROWS;
	}

	/**
	 * Makes the mistake and checks the row: the call throws the row's exception itself, with its
	 * message, and leaves Redis as it was.
	 */
	static void expect(String id, RedisNode redis, ThrowingCallable mistake) {
		Map<String, String> before = snapshot(redis);
		Throwable thrown = catchThrowable(mistake);
		assertThat(thrown).as(id + " throws").isNotNull();
		assertMatches(row(id), thrown);
		assertThat(snapshot(redis)).as(id + ": Redis is left as it was").isEqualTo(before);
	}

	/**
	 * Starts the application and checks the row: startup fails, the row's exception is in the
	 * failure's chain of causes with its message, and Redis is left as it was.
	 */
	static void expectStartupFailure(String id, RedisNode redis, ApplicationContextRunner runner) {
		Map<String, String> before = snapshot(redis);
		Row row = row(id);
		runner.run(context -> {
			Throwable failure = context.getStartupFailure();
			assertThat(failure).as(id + ": startup fails").isNotNull();
			Throwable match = failure;
			while (match != null && !match.getClass().getSimpleName().equals(row.exception())) {
				match = match.getCause();
			}
			assertThat(match).as(id + ": a " + row.exception() + " among the causes of " + failure).isNotNull();
			assertMatches(row, match);
		});
		assertThat(snapshot(redis)).as(id + ": Redis is left as it was").isEqualTo(before);
	}

	private static void assertMatches(Row row, Throwable thrown) {
		assertThat(thrown.getClass().getSimpleName()).as(row.id() + ": the exception (" + thrown + ")")
			.isEqualTo(row.exception());
		String message = String.valueOf(thrown.getMessage());
		int from = 0;
		for (String part : row.messageParts()) {
			int at = message.indexOf(part, from);
			assertThat(at).as(row.id() + ": '" + part + "' in order in the message: " + message).isNotNegative();
			from = at + part.length();
		}
	}

	static Row row(String id) {
		Row row = ROWS.get(id);
		assertThat(row).as("row " + id + " of " + FILE).isNotNull();
		return row;
	}

	/**
	 * Every key with its type, its value as {@code DUMP} gives it, and whether it expires; not the
	 * registry of live clients, which each client's announcements change every few seconds.
	 */
	static Map<String, String> snapshot(RedisNode redis) {
		Map<String, String> keys = new TreeMap<>();
		for (Object key : (List<?>) redis.call("KEYS", "*")) {
			String name = (String) key;
			if (name.startsWith("warden:{fleet}:")) {
				continue;
			}
			long ttl = (Long) redis.call("PTTL", name);
			keys.put(name, redis.call("TYPE", name) + " " + (ttl >= 0 ? "expiring " : "persistent ")
					+ redis.call("DUMP", name));
		}
		return keys;
	}

	private static Map<String, Row> read() {
		Map<String, Row> rows = new LinkedHashMap<>();
		try {
			for (String line : Files.readAllLines(FILE)) {
				Matcher row = ROW.matcher(line);
				if (row.matches()) {
					List<String> parts = new ArrayList<>();
					for (String part : row.group(4).split("…")) {
						if (!part.isBlank()) {
							parts.add(part.strip());
						}
					}
					Row previous = rows.put(row.group(1), new Row(row.group(1), row.group(3), List.copyOf(parts)));
					assertThat(previous).as("row " + row.group(1) + " appears once").isNull();
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return rows;
	}

}
