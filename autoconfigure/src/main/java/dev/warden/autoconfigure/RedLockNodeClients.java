package dev.warden.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/**
 * The Lettuce clients of the RedLock nodes named by {@code warden.redlock.nodes}: created on the
 * application client's resources (no extra event loops), shut down with the context after the
 * {@link dev.warden.Warden} that uses them.
 */
public final class RedLockNodeClients implements AutoCloseable {

	private final List<String> uris;

	private final List<RedisClient> clients = new ArrayList<>();

	/**
	 * @param uris the nodes' URIs
	 */
	public RedLockNodeClients(List<String> uris) {
		this.uris = List.copyOf(uris);
	}

	/**
	 * Creates a client per node, sharing the resources of {@code applicationClient}.
	 * @throws IllegalArgumentException naming {@code warden.redlock.nodes} when a URI is invalid
	 */
	synchronized List<RedisClient> connect(AbstractRedisClient applicationClient) {
		if (clients.isEmpty()) {
			for (String uri : uris) {
				RedisURI parsed;
				try {
					parsed = RedisURI.create(uri.trim());
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException("Invalid warden.redlock.nodes entry '" + uri + "': " + ex.getMessage(),
							ex);
				}
				clients.add(RedisClient.create(applicationClient.getResources(), parsed));
			}
		}
		return List.copyOf(clients);
	}

	@Override
	public synchronized void close() {
		clients.forEach(client -> client.shutdown(java.time.Duration.ZERO, java.time.Duration.ofSeconds(2)));
		clients.clear();
	}

}
