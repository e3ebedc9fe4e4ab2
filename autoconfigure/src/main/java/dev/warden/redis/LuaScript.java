package dev.warden.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One Lua script, read from a classpath resource once, with its SHA1 digest computed once.
 * <p>
 * Each script's header comment states its {@code KEYS}, {@code ARGV} and return values.
 */
public final class LuaScript {

	/**
	 * The prelude of every script that reads Redis's clock: defines {@code redisClock()}, which
	 * returns the time in microseconds, in milliseconds and as {@code TIME} answered it.
	 */
	public static final String CLOCK = "/dev/warden/redis/redis-clock.lua";

	/** The stand-in for {@link #CLOCK} in the scripts of a client whose clock a test moves. */
	static final String SHIFTED_CLOCK = "/dev/warden/redis/redis-clock-shifted.lua";

	/**
	 * The key holding the test clock's offset, in milliseconds (see {@link #SHIFTED_CLOCK}), in the
	 * default namespace: the default of {@link KeyNamespace#clockOffsetKey()}, which a client uses.
	 */
	public static final String CLOCK_OFFSET_KEY = "warden:test:clock-offset";

	/** The offset key as {@link #SHIFTED_CLOCK} names it, replaced by a client's own. */
	private static final String CLOCK_OFFSET_LITERAL = "'" + CLOCK_OFFSET_KEY + "'";

	private final String name;

	private final String source;

	private final String sha1;

	/** Makes the variant with the shifted clock in Redis's place; {@code null} when it reads no clock. */
	private final @Nullable Supplier<LuaScript> shiftedVariant;

	private volatile @Nullable LuaScript shifted;

	/** The shifted variants for other offset keys than {@link #CLOCK_OFFSET_KEY}, made on first use. */
	private final Map<String, LuaScript> shiftedElsewhere = new ConcurrentHashMap<>();

	private LuaScript(String name, String source, @Nullable Supplier<LuaScript> shiftedVariant) {
		this.name = name;
		this.source = source;
		this.sha1 = sha1Hex(source);
		this.shiftedVariant = shiftedVariant;
	}

	/**
	 * Reads a script that sits next to {@code anchor} in the classpath.
	 * @param anchor a class in the script's package
	 * @param fileName the file name, for example {@code lock-acquire.lua}
	 * @param preludes files next to it put in front of it, in order: helpers that several scripts
	 * share (Redis 6.2 has no script libraries); a name starting with {@code /} is a classpath path,
	 * such as {@link #CLOCK}
	 * @return the loaded script
	 */
	public static LuaScript load(Class<?> anchor, String fileName, String... preludes) {
		return new LuaScript(fileName, source(anchor, fileName, preludes),
				Arrays.asList(preludes).contains(CLOCK) ? () -> shiftedVariant(anchor, fileName, preludes) : null);
	}

	private static LuaScript shiftedVariant(Class<?> anchor, String fileName, String[] preludes) {
		String[] shiftedPreludes = Arrays.stream(preludes)
			.map(prelude -> CLOCK.equals(prelude) ? SHIFTED_CLOCK : prelude)
			.toArray(String[]::new);
		return new LuaScript(fileName, source(anchor, fileName, shiftedPreludes), null);
	}

	private static String source(Class<?> anchor, String fileName, String[] preludes) {
		StringBuilder source = new StringBuilder();
		for (String prelude : preludes) {
			source.append(read(anchor, prelude)).append('\n');
		}
		return source.append(read(anchor, fileName)).toString();
	}

	/**
	 * This script as a client whose clock a test moves runs it: the same script with Redis's clock
	 * moved forward by the offset at {@link #CLOCK_OFFSET_KEY}; the script itself when it reads no
	 * clock. Made once, on first use: a client without a test clock never makes it.
	 */
	public LuaScript shifted() {
		return shifted(CLOCK_OFFSET_KEY);
	}

	/**
	 * This script as a client whose clock a test moves runs it, the offset held at
	 * {@code offsetKey} (its namespace's {@linkplain KeyNamespace#clockOffsetKey() key}); the script
	 * itself when it reads no clock. Made once per key, on first use.
	 * @param offsetKey the key of the test clock's offset
	 * @return the script with the shifted clock
	 */
	public LuaScript shifted(String offsetKey) {
		if (shiftedVariant == null) {
			return this;
		}
		if (!CLOCK_OFFSET_KEY.equals(offsetKey)) {
			return shiftedElsewhere.computeIfAbsent(offsetKey, key -> {
				LuaScript standard = shifted(CLOCK_OFFSET_KEY);
				return new LuaScript(standard.name, standard.source.replace(CLOCK_OFFSET_LITERAL, luaString(key)), null);
			});
		}
		LuaScript variant = shifted;
		if (variant == null) {
			variant = shiftedVariant.get();
			shifted = variant;
		}
		return variant;
	}

	/** {@code text} as a Lua string literal. */
	private static String luaString(String text) {
		return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
	}

	private static String read(Class<?> anchor, String fileName) {
		try (InputStream in = anchor.getResourceAsStream(fileName)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + fileName + " not found next to " + anchor.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Lua script " + fileName, ex);
		}
	}

	public String name() {
		return name;
	}

	public String source() {
		return source;
	}

	public String sha1() {
		return sha1;
	}

	@Override
	public String toString() {
		return name;
	}

	private static String sha1Hex(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every JVM", ex);
		}
	}

}
