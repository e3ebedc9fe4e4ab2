package dev.warden;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.test.redis.RedisNode;

/** Waits for pub/sub state as Redis itself reports it. */
public final class RedisChannels {

	private RedisChannels() {
	}

	/** Waits until Redis reports {@code expected} subscribers of the channel. */
	public static void awaitSubscribers(RedisNode node, String channel, long expected) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		long subscribers = -1;
		while (System.nanoTime() < deadline) {
			subscribers = (Long) ((List<?>) node.call("PUBSUB", "NUMSUB", channel)).get(1);
			if (subscribers == expected) {
				return;
			}
			TimeUnit.MILLISECONDS.sleep(5);
		}
		throw new AssertionError(channel + " has " + subscribers + " subscribers, expected " + expected);
	}

	/** Waits until Redis reports no subscribed channel matching {@code pattern}. */
	public static void awaitNoChannels(RedisNode node, String pattern) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		List<?> channels = List.of();
		while (System.nanoTime() < deadline) {
			channels = (List<?>) node.call("PUBSUB", "CHANNELS", pattern);
			if (channels.isEmpty()) {
				return;
			}
			TimeUnit.MILLISECONDS.sleep(5);
		}
		throw new AssertionError("Still subscribed: " + channels.size() + " channels like " + pattern);
	}

}
