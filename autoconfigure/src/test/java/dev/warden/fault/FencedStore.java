package dev.warden.fault;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * A store that checks fencing tokens, as a database row with a token column would: a write with a
 * token older than the newest it accepted is refused. Kept in Redis, beside the lock, so that
 * processes share it.
 */
final class FencedStore {

	private static final String WRITE = """
			local newest = tonumber(redis.call('hget', KEYS[1], 'token') or '0')
			if tonumber(ARGV[1]) < newest then
			    return 0
			end
			redis.call('hset', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
			return 1
			""";

	private FencedStore() {
	}

	/** Writes {@code value} with {@code token}; false when a newer token wrote first. */
	static boolean write(RedisClient client, String key, long token, String value) {
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			Long written = connection.sync().eval(WRITE, ScriptOutputType.INTEGER, new String[] { key },
					Long.toString(token), value);
			return written != null && written == 1L;
		}
	}

}
