package dev.warden.test.redis;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one {@link RedisCluster} for a test class: started before the first test, stopped after the
 * last one (whether the tests passed or not). Its keys are left between tests: each test of a
 * cluster class names its own.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisClusterExtension redis = new RedisClusterExtension(3);
 *
 * @Test
 * void test() {
 *     Warden warden = clients.open(redis.cluster());
 * }
 * }</pre>
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

	private final int masters;

	private final int replicasPerMaster;

	private @Nullable RedisCluster cluster;

	/** A cluster of that many masters, without replicas. */
	public RedisClusterExtension(int masters) {
		this(masters, 0);
	}

	/** A cluster of that many masters, each with that many replicas. */
	public RedisClusterExtension(int masters, int replicasPerMaster) {
		this.masters = masters;
		this.replicasPerMaster = replicasPerMaster;
	}

	/** The running cluster. */
	public RedisCluster cluster() {
		RedisCluster current = this.cluster;
		if (current == null) {
			throw new IllegalStateException("The Redis cluster starts before the first test of the class; "
					+ "register the extension on a static field");
		}
		return current;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		cluster = RedisCluster.start(masters, replicasPerMaster);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (cluster != null) {
			cluster.close();
			cluster = null;
		}
	}

}
