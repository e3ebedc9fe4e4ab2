package dev.warden.fault;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.TaskLimits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A service in a process of its own that consumes a delayed queue whose payloads are
 * {@code <tenant>:<n>}, with at most {@code concurrency} tasks per tenant running at once across all
 * instances. Each handler records, on a connection of its own, how many tasks of its tenant run
 * (the most in the hash {@code most}, by tenant), works for {@code work} ms, and pushes its tenant
 * onto the list {@code finished}; a payload {@code <tenant>:hold} prints {@code HOLDING} and holds
 * its slot until the process is killed (a minute at most). {@code READY} once it consumes; it runs until its standard input ends (or
 * it is killed).
 * <p>
 * Arguments: Redis host, port, queue name, visibility timeout in ms, concurrency, work in ms.
 */
public final class ForkedTenantConsumer {

	/** Counts one more running task of the tenant, and keeps the most seen: KEYS[1] running, KEYS[2] most. */
	static final String ENTER = "local n = redis.call('hincrby', KEYS[1], ARGV[1], 1) "
			+ "if n > tonumber(redis.call('hget', KEYS[2], ARGV[1]) or '0') then redis.call('hset', KEYS[2], ARGV[1], n) end "
			+ "return n";

	private ForkedTenantConsumer() {
	}

	static String tenant(String payload) {
		return payload.substring(0, payload.indexOf(':'));
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(RedisURI.create(args[0], Integer.parseInt(args[1])));
		StatefulRedisConnection<String, String> recording = client.connect();
		RedisCommands<String, String> record = recording.sync();
		Warden warden = Warden.builder(client).commandTimeout(Duration.ofSeconds(2)).taskConcurrency(4).build();
		Duration visibility = Duration.ofMillis(Long.parseLong(args[3]));
		int concurrency = Integer.parseInt(args[4]);
		long work = Long.parseLong(args[5]);
		warden.getDelayedQueue(args[2], String.class).consume(delivery -> {
			String tenant = tenant(delivery.payload());
			synchronized (record) {
				record.eval(ENTER, ScriptOutputType.INTEGER, new String[] { "running", "most" }, tenant);
			}
			if (delivery.payload().endsWith(":hold")) {
				System.out.println("HOLDING");
				// Held until the test kills this process.
				new java.util.concurrent.CountDownLatch(1).await(1, TimeUnit.MINUTES);
			}
			TimeUnit.MILLISECONDS.sleep(work);
			synchronized (record) {
				record.hincrby("running", tenant, -1);
				record.rpush("finished", tenant);
			}
		}, new ConsumerOptions(3, Duration.ofMillis(100), Duration.ofSeconds(1), visibility)
			.withLimits(TaskLimits.concurrency(concurrency).perKey(String.class, ForkedTenantConsumer::tenant)));
		System.out.println("READY");
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		while (input.readLine() != null) {
			// Until the test closes our input.
		}
		warden.close();
		recording.close();
		client.shutdown();
	}

}
