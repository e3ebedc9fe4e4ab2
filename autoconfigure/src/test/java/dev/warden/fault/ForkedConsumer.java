package dev.warden.fault;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.task.ConsumerOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/**
 * A service in a process of its own that consumes one delayed queue and prints
 * {@code RAN <task id> <start, epoch ms> <due, epoch ms>} as each handler starts; {@code READY} once
 * it consumes. It runs until its standard input ends (or it is killed).
 * <p>
 * Arguments: Redis host, port, queue name, visibility timeout in milliseconds.
 */
public final class ForkedConsumer {

	private ForkedConsumer() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(RedisURI.create(args[0], Integer.parseInt(args[1])));
		Warden warden = Warden.builder(client).commandTimeout(Duration.ofSeconds(2)).build();
		Duration visibility = Duration.ofMillis(Long.parseLong(args[3]));
		warden.getDelayedQueue(args[2], String.class).consume(delivery -> {
			System.out.println("RAN " + delivery.id() + " " + System.currentTimeMillis() + " " + delivery.payload());
			// A little work, so that some handlers are running when the process is killed.
			TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(20));
		}, new ConsumerOptions(100, Duration.ofMillis(100), Duration.ofSeconds(1), visibility));
		System.out.println("READY");
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		while (input.readLine() != null) {
			// Until the test closes our input.
		}
		warden.close();
		client.shutdown();
	}

}
