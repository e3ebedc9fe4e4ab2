package dev.warden.test;

import dev.warden.test.redis.RedisNode;

/**
 * The Redis that {@link WardenTest} started for the tests of this JVM: one {@code redis-server} on a
 * free loopback port, without persistence, stopped when the JVM exits.
 */
public final class TestRedis {

	private static final Object monitor = new Object();

	private static volatile TestRedis shared;

	private final RedisNode node;

	private TestRedis(RedisNode node) {
		this.node = node;
	}

	/** {@return the server of this JVM, started at the first call} */
	public static TestRedis shared() {
		TestRedis current = shared;
		if (current == null) {
			synchronized (monitor) {
				current = shared;
				if (current == null) {
					RedisNode node = RedisNode.start(RedisNode.config().name("warden-test"));
					Runtime.getRuntime().addShutdownHook(new Thread(node::close, "warden-test-redis-stop"));
					current = new TestRedis(node);
					shared = current;
				}
			}
		}
		return current;
	}

	/** {@return its host: a loopback address} */
	public String host() {
		return node.host();
	}

	/** {@return its port} */
	public int port() {
		return node.port();
	}

	/**
	 * Deletes every key on this server, Warden's locks, tasks and dead letters among them, so that
	 * the next test starts from an empty Redis. The server is the tests' own: nothing else is on it.
	 */
	public void flushAll() {
		node.call("FLUSHALL");
	}

	/**
	 * The server's {@code run_id}, which tells it from any other Redis, on any address.
	 * @return the id
	 */
	public String runId() {
		String info = (String) node.call("INFO", "server");
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("run_id:")) {
				return line.substring("run_id:".length()).trim();
			}
		}
		throw new IllegalStateException(this + " did not tell its run_id");
	}

	/**
	 * Runs one command on the server, for assertions on what is stored.
	 * @param command the command and its arguments
	 * @return the reply: a {@code String}, a {@code Long}, a {@code List} of them, or {@code null}
	 */
	public Object call(String... command) {
		return node.call(command);
	}

	@Override
	public String toString() {
		return "TestRedis " + host() + ":" + port();
	}

}
