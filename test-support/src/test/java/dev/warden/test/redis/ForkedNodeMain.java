package dev.warden.test.redis;

/** Run in a separate JVM by {@link ProcessReaperTests}: starts a node, reports its pid, waits. */
public final class ForkedNodeMain {

	private ForkedNodeMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisNode node = RedisNode.start(RedisNode.config().name("forked"));
		System.out.println("redis-pid=" + node.pid());
		System.out.flush();
		// Blocks until the parent kills this JVM.
		System.in.read();
	}

}
