package dev.warden.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

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

	private final String name;

	private final String source;

	private final String sha1;

	private LuaScript(String name, String source) {
		this.name = name;
		this.source = source;
		this.sha1 = sha1Hex(source);
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
		StringBuilder source = new StringBuilder();
		for (String prelude : preludes) {
			source.append(read(anchor, prelude)).append('\n');
		}
		return new LuaScript(fileName, source.append(read(anchor, fileName)).toString());
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
