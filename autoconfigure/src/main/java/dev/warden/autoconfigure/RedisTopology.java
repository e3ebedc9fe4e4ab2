package dev.warden.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Where the application's Redis is, in words, for messages and the startup line. */
final class RedisTopology {

	private RedisTopology() {
	}

	/**
	 * @param factory the application's connection factory
	 * @return {@code standalone 127.0.0.1:6379}, {@code Sentinel master 'orders' via host:port, ...}
	 * or {@code Cluster host:port, ...}
	 */
	static String describe(LettuceConnectionFactory factory) {
		RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
		if (sentinel != null) {
			String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
			return "Sentinel master '" + master + "' via " + sentinel.getSentinels()
				.stream()
				.map(node -> node.getHost() + ":" + node.getPort())
				.collect(Collectors.joining(", "));
		}
		RedisClusterConfiguration cluster = factory.getClusterConfiguration();
		if (cluster != null) {
			return "Cluster " + cluster.getClusterNodes()
				.stream()
				.map(node -> node.getHost() + ":" + node.getPort())
				.collect(Collectors.joining(", "));
		}
		RedisStandaloneConfiguration standalone = factory.getStandaloneConfiguration();
		return "standalone " + standalone.getHostName() + ":" + standalone.getPort();
	}

}
