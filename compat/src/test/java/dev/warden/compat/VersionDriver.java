package dev.warden.compat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.warden.Warden;
import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskLimits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The other version's instance: a Warden client in a JVM of its own, on the jars of the version
 * under test, run line by line from its standard input. It uses only the public API both versions
 * have (the compatibility check keeps it in the later version). Each command is answered by one
 * line, {@code = <result>} or {@code ! <error>}; what happens meanwhile (a task run) is told in
 * lines starting with {@code > }. It ends when its input ends (its parent died) or at {@code quit}.
 * <ul>
 * <li>{@code schedule <queue> <id> <delay ms> <payload>}</li>
 * <li>{@code consume <queue>}, {@code consume-failing <queue>} (one attempt),
 * {@code consume-limited <queue>} (one task of a payload at a time, overlaps counted in Redis),
 * {@code stop <queue>}: a task run here is told as {@code > ran <queue> <id> <payload>}</li>
 * <li>{@code consume-held <queue>}: a task's handler tells {@code > started <queue> <id> <payload>},
 * then waits until {@code let <queue>} (at most a minute) before it returns</li>
 * <li>{@code cancel <queue> <id>}: whether the task was cancelled</li>
 * <li>{@code redrive <queue>}, {@code dead <queue>}, {@code pending <queue>}: counts</li>
 * <li>{@code trylock <kind> <name> <wait ms>}, {@code unlock <kind> <name>}, kinds {@code lock},
 * {@code fair}, {@code simple}, {@code read}, {@code write}, {@code semaphore}, {@code permit}</li>
 * <li>{@code latch-set <name> <count>}, {@code latch-down <name>}</li>
 * <li>{@code rate <name> <permits per minute>}: one permit or not</li>
 * <li>{@code app <configuration class>}, {@code app-stop}: a Spring Boot application of that
 * configuration on the same Redis; {@code remind <order>} schedules version 1 of
 * {@link MixedVersionApps}' reminder there</li>
 * </ul>
 */
public final class VersionDriver {

	private final Warden warden;

	private final PrintStream out;

	private final Map<String, TaskConsumer> consumers = new HashMap<>();

	private final Map<String, String> permits = new HashMap<>();

	/** Per queue, what the handlers of {@code consume-held} wait for. */
	private final Map<String, java.util.concurrent.CountDownLatch> held = new java.util.concurrent.ConcurrentHashMap<>();

	private final RedisCommands<String, String> redis;

	/** One attempt, a short backoff: a failing task is a dead letter at once. */
	static final ConsumerOptions ONE_ATTEMPT = new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1),
			Duration.ofMinutes(1));

	/** One task of a payload at a time, whichever instance runs it. */
	static final TaskLimits ONE_PER_PAYLOAD = new TaskLimits(1, null, payload -> (String) payload);

	private enum Mode {

		PLAIN, FAILING, ONE_PER_PAYLOAD, HELD

	}

	private static volatile PrintStream events;

	private org.springframework.context.ConfigurableApplicationContext application;

	private final String[] redisAddress;

	/** Tells the test of something that happened here, as a line starting with {@code > }. */
	static void event(String what) {
		PrintStream out = events;
		if (out != null) {
			synchronized (out) {
				out.println("> " + what);
			}
		}
	}

	private VersionDriver(Warden warden, RedisCommands<String, String> redis, PrintStream out, String[] redisAddress) {
		this.redisAddress = redisAddress;
		this.warden = warden;
		this.redis = redis;
		this.out = out;
	}

	public static void main(String[] args) throws Exception {
		PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		RedisClient client = RedisClient.create(RedisURI.create(args[0], Integer.parseInt(args[1])));
		Warden warden = Warden.builder(client).build();
		events = out;
		VersionDriver driver = new VersionDriver(warden, client.connect().sync(), out, args);
		out.println("= ready");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null && !line.equals("quit")) {
			try {
				driver.answer("= " + driver.run(line.split(" ", 5)));
			}
			catch (Exception ex) {
				driver.answer("! " + ex);
			}
		}
		driver.consumers.values().forEach(TaskConsumer::close);
		if (driver.application != null) {
			driver.application.close();
		}
		warden.close();
		client.shutdown();
		out.println("= bye");
	}

	private void answer(String line) {
		synchronized (out) {
			out.println(line);
		}
	}

	private String run(String[] words) throws Exception {
		return switch (words[0]) {
			case "schedule" -> {
				queue(words[1]).schedule(words[2], words[4], Duration.ofMillis(Long.parseLong(words[3])));
				yield "ok";
			}
			case "consume" -> consume(words[1], Mode.PLAIN);
			case "consume-failing" -> consume(words[1], Mode.FAILING);
			case "consume-limited" -> consume(words[1], Mode.ONE_PER_PAYLOAD);
			case "consume-held" -> consume(words[1], Mode.HELD);
			case "let" -> {
				held.computeIfAbsent(words[1], name -> new java.util.concurrent.CountDownLatch(1)).countDown();
				yield "ok";
			}
			case "cancel" -> Boolean.toString(queue(words[1]).cancel(words[2]));
			case "stop" -> {
				TaskConsumer consumer = consumers.remove(words[1]);
				if (consumer != null) {
					consumer.close();
				}
				yield "ok";
			}
			case "redrive" -> Long.toString(queue(words[1]).requeueDeadLetters(java.time.Instant.EPOCH,
					java.time.Instant.now().plusSeconds(3600)));
			case "dead" -> Long.toString(queue(words[1]).deadLetterCount());
			case "pending" -> Long.toString(queue(words[1]).stats().pending());
			case "trylock" -> Boolean.toString(tryLock(words[1], words[2], Long.parseLong(words[3])));
			case "unlock" -> {
				unlock(words[1], words[2]);
				yield "ok";
			}
			case "latch-set" -> Boolean.toString(warden.getCountDownLatch(words[1]).trySetCount(Long.parseLong(words[2])));
			case "latch-down" -> {
				warden.getCountDownLatch(words[1]).countDown();
				yield "ok";
			}
			case "rate" -> Boolean.toString(warden.getRateLimiter(words[1],
					RateLimit.of(Long.parseLong(words[2]), Duration.ofMinutes(1))).tryAcquire());
			case "app" -> {
				application = new org.springframework.boot.builder.SpringApplicationBuilder(Class.forName(words[1]))
					.web(org.springframework.boot.WebApplicationType.NONE)
					.run("--spring.data.redis.host=" + redisAddress[0], "--spring.data.redis.port=" + redisAddress[1],
							"--spring.application.name=mixed");
				yield "ok";
			}
			case "remind" -> {
				application.getBean(MixedVersionApps.Before.Reminders.class).remind(words[1]);
				yield "ok";
			}
			case "app-stop" -> {
				application.close();
				yield "ok";
			}
			default -> throw new IllegalArgumentException("Unknown command " + words[0]);
		};
	}

	private DelayedQueue<String> queue(String name) {
		return warden.getDelayedQueue(name, String.class);
	}

	private String consume(String name, Mode mode) {
		ConsumerOptions options = switch (mode) {
			case PLAIN -> ConsumerOptions.DEFAULTS;
			case FAILING -> ONE_ATTEMPT;
			case ONE_PER_PAYLOAD -> ConsumerOptions.DEFAULTS.withLimits(ONE_PER_PAYLOAD);
			case HELD -> ConsumerOptions.DEFAULTS;
		};
		consumers.put(name, queue(name).consume(delivery -> {
			if (mode == Mode.FAILING) {
				throw new IllegalStateException("failing on purpose in the other version");
			}
			if (mode == Mode.ONE_PER_PAYLOAD) {
				overlapCheck(redis, delivery.payload());
			}
			if (mode == Mode.HELD) {
				answer("> started " + name + " " + delivery.id() + " " + delivery.payload());
				held.computeIfAbsent(name, queue -> new java.util.concurrent.CountDownLatch(1)).await(60, TimeUnit.SECONDS);
			}
			answer("> ran " + name + " " + delivery.id() + " " + delivery.payload());
		}, options));
		return "ok";
	}

	/**
	 * Counts the tasks of one key running at once, across instances and versions, in Redis: a second
	 * one sets {@code compat:overlap}.
	 */
	static void overlapCheck(RedisCommands<String, String> redis, String key) throws InterruptedException {
		if (redis.incr("compat:running:" + key) > 1) {
			redis.set("compat:overlap", key);
		}
		Thread.sleep(20);
		redis.decr("compat:running:" + key);
	}

	private boolean tryLock(String kind, String name, long waitMillis) throws InterruptedException {
		switch (kind) {
			case "semaphore" -> {
				DistributedSemaphore semaphore = warden.getSemaphore(name);
				semaphore.trySetPermits(1);
				return semaphore.tryAcquire(1, waitMillis, TimeUnit.MILLISECONDS);
			}
			case "permit" -> {
				DistributedPermitExpirableSemaphore semaphore = warden.getPermitExpirableSemaphore(name);
				semaphore.trySetPermits(1);
				java.util.Optional<String> permit = semaphore.tryAcquire(waitMillis, 60_000, TimeUnit.MILLISECONDS);
				permit.ifPresent(id -> permits.put(name, id));
				return permit.isPresent();
			}
			default -> {
				return lock(kind, name).tryLock(waitMillis, TimeUnit.MILLISECONDS);
			}
		}
	}

	private void unlock(String kind, String name) {
		switch (kind) {
			case "semaphore" -> warden.getSemaphore(name).release();
			case "permit" -> warden.getPermitExpirableSemaphore(name).release(permits.remove(name));
			default -> lock(kind, name).unlock();
		}
	}

	/** A lock of each kind the suite contends; the same kind in both versions is named alike. */
	static Lock lock(Warden warden, String kind, String name) {
		return switch (kind) {
			case "lock" -> warden.getLock(name);
			case "fair" -> warden.getFairLock(name);
			case "simple" -> warden.getSimpleLock(name);
			case "read" -> warden.getReadWriteLock(name).readLock();
			case "write" -> warden.getReadWriteLock(name).writeLock();
			default -> throw new IllegalArgumentException("Unknown lock kind " + kind);
		};
	}

	private Lock lock(String kind, String name) {
		return lock(warden, kind, name);
	}

}
