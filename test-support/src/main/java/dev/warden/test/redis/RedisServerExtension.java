package dev.warden.test.redis;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one {@link RedisNode} for a test class: started before the first test, flushed before each
 * test, stopped after the last one (whether the tests passed or not).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 *
 * @Test
 * void test() {
 *     RedisClient client = RedisClient.create(redis.node().uri());
 * }
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private final RedisNode.Config config;

	private @Nullable RedisNode node;

	/** A single node with the default configuration. */
	public RedisServerExtension() {
		this(RedisNode.config());
	}

	public RedisServerExtension(RedisNode.Config config) {
		this.config = config;
	}

	/** The running node. */
	public RedisNode node() {
		RedisNode current = this.node;
		if (current == null) {
			throw new IllegalStateException("The Redis node starts before the first test of the class; "
					+ "register the extension on a static field");
		}
		return current;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		node = RedisNode.start(config);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisNode current = node();
		if (!current.isRunning()) {
			// A previous test stopped it on purpose (a fault test); give the next one a server again.
			current.restart();
		}
		current.call("FLUSHALL");
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (node != null) {
			node.stop();
			node = null;
		}
	}

}
