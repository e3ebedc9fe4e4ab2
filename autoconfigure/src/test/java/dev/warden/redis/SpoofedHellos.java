package dev.warden.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import dev.warden.test.redis.RedisNode;

/**
 * Publishes messages in the Sentinels' format on {@code __sentinel__:hello} of a node, as anyone
 * allowed to {@code PUBLISH} there can: {@code ip,port,runid,epoch,name,master-ip,master-port,epoch}.
 */
public final class SpoofedHellos {

	/** The Sentinels' channel. */
	public static final String CHANNEL = MasterFollower.HELLO_CHANNEL;

	private SpoofedHellos() {
	}

	/**
	 * Publishes {@code count} messages on {@code node}, one every {@code every}, and returns once all
	 * are published.
	 * @param message the {@code i}-th message
	 */
	public static void publish(RedisNode node, Duration every, int count, IntFunction<String> message)
			throws InterruptedException {
		ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor();
		CountDownLatch published = new CountDownLatch(count);
		AtomicInteger next = new AtomicInteger();
		try {
			publisher.scheduleAtFixedRate(() -> {
				int i = next.getAndIncrement();
				if (i < count) {
					node.call("PUBLISH", CHANNEL, message.apply(i));
					published.countDown();
				}
			}, 0, every.toNanos(), TimeUnit.NANOSECONDS);
			if (!published.await(every.toMillis() * count + 30_000, TimeUnit.MILLISECONDS)) {
				throw new AssertionError("Published " + (count - published.getCount()) + " of " + count + " messages");
			}
		}
		finally {
			publisher.shutdownNow();
		}
	}

	/**
	 * A message naming {@code host:port} the master {@code name}, from a Sentinel at
	 * 127.0.0.1:26379 that does not exist.
	 */
	public static String naming(String name, String host, int port) {
		return from("127.0.0.1", 26379, "0123456789abcdef0123456789abcdef01234567", name, host, port);
	}

	/**
	 * A message naming {@code host:port} the master {@code name}, in the name of the Sentinel at
	 * {@code sentinelHost:sentinelPort} whose run id is {@code runId}. Its epochs are 0: real
	 * Sentinels hearing it take it for an old announcement of that Sentinel and change nothing.
	 */
	public static String from(String sentinelHost, int sentinelPort, String runId, String name, String host, int port) {
		return sentinelHost + "," + sentinelPort + "," + runId + ",0," + name + "," + host + "," + port + ",0";
	}

}
