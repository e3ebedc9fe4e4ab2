package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.warden.test.redis.RedisCluster;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Opens Warden clients for a test, each on its own {@link RedisClient} (its own connections), as
 * separate services would have, and closes them all after the test.
 */
public final class WardenClients implements AfterEachCallback {

	private final List<AutoCloseable> opened = new ArrayList<>();

	/** A client with default options on {@code node}. */
	public Warden open(RedisNode node) {
		return open(node, UnaryOperator.identity());
	}

	/** A client on {@code node}, its options adjusted by {@code options}. */
	public Warden open(RedisNode node, UnaryOperator<Warden.Builder> options) {
		return open(redisClient(node), options);
	}

	/** A client with default options on a Lettuce client of the test's own. */
	public Warden open(RedisClient client) {
		return open(client, UnaryOperator.identity());
	}

	/** A client on a Lettuce client of the test's own, its options adjusted by {@code options}. */
	public synchronized Warden open(RedisClient client, UnaryOperator<Warden.Builder> options) {
		Warden warden = options.apply(Warden.builder(client)).build();
		opened.add(warden);
		return warden;
	}

	/** A client on the cluster, through a Lettuce cluster client of its own, as a separate service would have. */
	public synchronized Warden open(RedisCluster cluster) {
		RedisClusterClient client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
		opened.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
		Warden warden = Warden.create(client);
		opened.add(warden);
		return warden;
	}

	/** A plain Lettuce client on {@code node}, shut down after the test. */
	public RedisClient redisClient(RedisNode node) {
		return redisClient(RedisURI.builder().withHost(node.host()).withPort(node.port()));
	}

	/** A plain Lettuce client on {@code host:port} (a proxy in front of Redis), shut down after the test. */
	public RedisClient redisClient(String host, int port) {
		return redisClient(RedisURI.builder().withHost(host).withPort(port));
	}

	/** A plain Lettuce client on {@code node} that logs in as {@code user}, shut down after the test. */
	public RedisClient redisClient(RedisNode node, String user, String password) {
		return redisClient(RedisURI.builder()
			.withHost(node.host())
			.withPort(node.port())
			.withAuthentication(user, password));
	}

	/** A plain Lettuce client on {@code uri} (a Sentinel URI, say), shut down after the test. */
	public synchronized RedisClient redisClient(RedisURI.Builder uri) {
		RedisClient client = RedisClient.create(uri.withTimeout(Duration.ofSeconds(5)).build());
		opened.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
		return client;
	}

	/**
	 * How many keys {@code node} holds besides the fleet registry, whose two keys every live client
	 * keeps ({@link dev.warden.redis.Fleet}).
	 */
	public static long keysBesidesTheFleet(RedisNode node) {
		String namespace = dev.warden.redis.Fleet.DEFAULT_NAMESPACE;
		// One call: an announcement may write the registry again at any time.
		return (Long) node.call("EVAL", "return redis.call('dbsize') - redis.call('exists', KEYS[1], KEYS[2])", "2",
				dev.warden.redis.Fleet.instancesKey(namespace), dev.warden.redis.Fleet.expiryKey(namespace));
	}

	/** Closes one client early, as a service that stops would. */
	public synchronized void close(Warden warden) {
		warden.close();
	}

	@Override
	public synchronized void afterEach(ExtensionContext context) throws Exception {
		// Wardens first, then their RedisClients: reverse order of opening.
		for (int i = opened.size() - 1; i >= 0; i--) {
			opened.get(i).close();
		}
		opened.clear();
	}

}
