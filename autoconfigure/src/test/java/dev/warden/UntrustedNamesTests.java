package dev.warden;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Lock and queue names taken from user input reach no other key: a glob character, spaces, other
 * scripts and a kilobyte of text are accepted and confined to the keys and channel of their own
 * name (a lock on a similar name is neither taken nor released); braces are refused, and so are a
 * control character (a line break would write a line of its own into the log) and a name beyond
 * {@link WardenNames#MAX_LENGTH} characters, in every kind of name and in task ids.
 */
class UntrustedNamesTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	static List<String> names() {
		return List.of("order*", "order 42", "ordér:42 ✓", "order:" + "x".repeat(WardenNames.MAX_LENGTH - 6));
	}

	@ParameterizedTest
	@MethodSource("names")
	void aLockOfSuchANameTouchesOnlyItsOwnKeyAndChannel(String name) throws Exception {
		Warden holder = clients.open(redis.node());
		Warden other = clients.open(redis.node());
		String neighbour = "order";
		LockOwner owner = holder.newOwner();
		DistributedReentrantLock lock = holder.getLock(name);
		assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(keys()).containsExactly(name);

		LockOwner waiter = other.newOwner();
		assertThat(other.getLock(neighbour).tryLock(waiter, 0, TimeUnit.SECONDS)).as("another name is free").isTrue();
		Future<Boolean> sameName = threads.submit(() -> other.getLock(name).tryLock(other.newOwner(), 10, TimeUnit.SECONDS));
		Eventually.await("the waiter subscribed", () -> other.subscribedChannels() > 0);

		lock.unlock(owner);
		assertThat(sameName.get(10, TimeUnit.SECONDS)).as("the waiter on the name itself, woken").isTrue();
		assertThat(keys()).containsExactlyInAnyOrder(name, neighbour);
		assertThat(other.getLock(neighbour).isHeldBy(waiter)).as("the other name untouched").isTrue();
	}

	@ParameterizedTest
	@MethodSource("names")
	void aQueueOfSuchANameKeepsToItsOwnKeys(String name) throws Exception {
		Warden warden = clients.open(redis.node());
		DelayedQueue<String> queue = warden.getDelayedQueue(name, String.class);
		CountDownLatch ran = new CountDownLatch(1);
		queue.consume(delivery -> ran.countDown());
		queue.schedule("t-1", "x", Duration.ofMillis(10));
		warden.getDelayedQueue("order", String.class).schedule("t-2", "x", Duration.ofHours(1));

		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(keys()).allSatisfy(key -> assertThat(key)
			.matches(k -> k.startsWith("warden:task:{" + name + "}:") || k.startsWith("warden:task:{order}:"), "a key of one of the queues"));
		assertThat(warden.getDelayedQueue("order", String.class).contains("t-2")).isTrue();
	}

	@Test
	void bracesAreRefused() {
		Warden warden = clients.open(redis.node());
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getLock("order{42}"));
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getDelayedQueue("order}", String.class));
		assertThat(keys()).isEmpty();
	}

	static List<String> unsafeNames() {
		return List.of("order\n42", "order\r\n42", "order\u0000", "order\u001b[31m", "order\u0085", "order\u2028",
				"x".repeat(WardenNames.MAX_LENGTH + 1));
	}

	@ParameterizedTest
	@MethodSource("unsafeNames")
	void controlCharactersAndOverlongNamesAreRefusedEverywhereBeforeReachingRedis(String name) {
		Warden warden = clients.open(redis.node());
		String problem = name.length() > WardenNames.MAX_LENGTH ? "must have at most 1024 characters"
				: "must not contain control characters";
		List<ThrowingCallable> uses = List.of(() -> warden.getLock(name), () -> warden.getFairLock(name),
				() -> warden.getSimpleLock(name), () -> warden.getReadWriteLock(name), () -> warden.getSemaphore(name),
				() -> warden.getPermitExpirableSemaphore(name), () -> warden.getCountDownLatch(name),
				() -> warden.getRateLimiter(name, RateLimit.of(1, Duration.ofSeconds(1))),
				() -> warden.getDelayedQueue(name, String.class),
				() -> warden.getDelayedQueue("order", String.class).schedule(name, "x", Duration.ofHours(1)));
		for (ThrowingCallable use : uses) {
			assertThatIllegalArgumentException().isThrownBy(use)
				.withMessageContaining(problem)
				.satisfies(ex -> assertThat(ex.getMessage()).as("the message is one line, the name shown escaped")
					.doesNotContain("\n", "\r", "\u0000", "\u001b", "\u0085", "\u2028")
					.hasSizeLessThan(400));
		}
		assertThat(keys()).isEmpty();
	}

	@Test
	void theMessageNamesTheCharacterAndWhere() {
		Warden warden = clients.open(redis.node());
		assertThatIllegalArgumentException().isThrownBy(() -> warden.getDelayedQueue("payments\nforged", String.class))
			.withMessage("A queue name must not contain control characters such as a line break, since it is written "
					+ "to Redis keys and log lines: 'payments\\nforged' has \\n at index 8");
	}

	private static Set<String> keys() {
		Set<String> keys = new TreeSet<>();
		for (Object key : (List<?>) redis.node().call("KEYS", "*")) {
			// Not the registry of live clients, which every client keeps.
			if (!((String) key).startsWith("warden:{fleet}:")) {
				keys.add((String) key);
			}
		}
		return keys;
	}

}
