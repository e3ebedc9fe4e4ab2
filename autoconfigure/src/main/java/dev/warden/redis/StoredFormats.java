package dev.warden.redis;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The stored formats a build of Warden reads and writes, one number per family of keys, and the
 * build's version. A family's format grows by one each time what Warden stores for it changes in a
 * way an older version cannot read; a build reads every format of a family from 1 up to its
 * {@linkplain #reads(Family) highest}, and writes by default its {@linkplain #writes(Family) own}.
 * It writes a newer format only once every live instance reads it ({@link Fleet}).
 */
public final class StoredFormats {

	/**
	 * The format of queues, their meta fields, channels and recurring plans this build writes. Format
	 * 2 keeps the claim of a delivery under way in one meta field, {@code x:<id>}, in place of
	 * format 1's {@code a:<id>} and {@code c:<id>}; a task that is not in flight is stored alike in both.
	 */
	public static final int TASKS = 2;

	/** The format of rate-limiter state this build writes. */
	public static final int LIMITERS = 1;

	/** The format every version reads: what an instance that announces no format of a family reads. */
	public static final int FLOOR = 1;

	/** Where the build writes its version (Maven filters this one resource). */
	static final String VERSION_RESOURCE = "/dev/warden/warden-version.properties";

	/** A family of stored keys, which change format together. */
	public enum Family {

		/** Queues, their meta fields, channels and recurring plans. */
		TASKS,

		/** Rate-limiter state. */
		LIMITERS;

		/** The family's name in announcements and operators' views: {@code tasks}, {@code limiters}. */
		public String key() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	/** This build's formats and version. */
	public static final StoredFormats CURRENT = new StoredFormats(buildVersion(),
			Map.of(Family.TASKS, TASKS, Family.LIMITERS, LIMITERS), Map.of(Family.TASKS, TASKS, Family.LIMITERS, LIMITERS));

	private final String version;

	private final Map<Family, Integer> reads;

	private final Map<Family, Integer> writes;

	/**
	 * @param version the build's version
	 * @param reads the highest format read, per family (at least the format written)
	 * @param writes the format written by default, per family
	 */
	public StoredFormats(String version, Map<Family, Integer> reads, Map<Family, Integer> writes) {
		this.version = version;
		this.reads = Collections.unmodifiableMap(complete(reads));
		this.writes = Collections.unmodifiableMap(complete(writes));
		for (Family family : Family.values()) {
			if (this.writes.get(family) > this.reads.get(family)) {
				throw new IllegalArgumentException("A build reads what it writes: " + family.key() + " written in format "
						+ this.writes.get(family) + ", read up to " + this.reads.get(family));
			}
		}
	}

	private static Map<Family, Integer> complete(Map<Family, Integer> formats) {
		Map<Family, Integer> complete = new EnumMap<>(Family.class);
		for (Family family : Family.values()) {
			int format = formats.getOrDefault(family, FLOOR);
			if (format < FLOOR) {
				throw new IllegalArgumentException("Formats start at " + FLOOR + ": " + family.key() + " " + format);
			}
			complete.put(family, format);
		}
		return complete;
	}

	/** The build's version, as Maven wrote it; {@code unknown} when the resource is missing or unfiltered. */
	public String version() {
		return version;
	}

	/**
	 * The highest format of a family this build reads: it reads every one from {@link #FLOOR} to it.
	 * @param family the family
	 * @return the format
	 */
	public int reads(Family family) {
		return reads.get(family);
	}

	/**
	 * The format of a family this build writes when every live instance reads it.
	 * @param family the family
	 * @return the format
	 */
	public int writes(Family family) {
		return writes.get(family);
	}

	private static String buildVersion() {
		try (InputStream in = StoredFormats.class.getResourceAsStream(VERSION_RESOURCE)) {
			if (in == null) {
				return "unknown";
			}
			Properties properties = new Properties();
			properties.load(in);
			String version = properties.getProperty("version", "").trim();
			return (version.isEmpty() || version.contains("${")) ? "unknown" : version;
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

}
