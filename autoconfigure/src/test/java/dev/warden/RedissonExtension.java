package dev.warden;

import dev.warden.test.redis.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A real Redisson client on a test class's Redis, the peer Warden must interoperate with: created
 * at first use (the Redis node is up by then), shut down after the class.
 */
public final class RedissonExtension implements AfterAllCallback {

	private final RedisServerExtension redis;

	private @Nullable RedissonClient client;

	public RedissonExtension(RedisServerExtension redis) {
		this.redis = redis;
	}

	/** The Redisson client. */
	public synchronized RedissonClient client() {
		if (client == null) {
			Config config = new Config();
			config.useSingleServer().setAddress(redis.node().uri()).setConnectionMinimumIdleSize(1);
			client = Redisson.create(config);
		}
		return client;
	}

	@Override
	public synchronized void afterAll(ExtensionContext context) {
		if (client != null) {
			client.shutdown();
			client = null;
		}
	}

}
