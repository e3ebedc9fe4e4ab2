package dev.warden;

import dev.warden.test.redis.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A real Redisson client on a test class's Redis, the peer Warden must interoperate with. Register
 * it after the {@link RedisServerExtension} it uses.
 */
public final class RedissonExtension implements BeforeAllCallback, AfterAllCallback {

	private final RedisServerExtension redis;

	private @Nullable RedissonClient client;

	public RedissonExtension(RedisServerExtension redis) {
		this.redis = redis;
	}

	/** The Redisson client. */
	public RedissonClient client() {
		RedissonClient current = client;
		if (current == null) {
			throw new IllegalStateException("Redisson starts before the first test of the class");
		}
		return current;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.node().uri()).setConnectionMinimumIdleSize(1);
		client = Redisson.create(config);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (client != null) {
			client.shutdown();
			client = null;
		}
	}

}
