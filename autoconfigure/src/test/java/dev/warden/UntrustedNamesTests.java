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
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Lock and queue names taken from user input reach no other key: a glob character, spaces, a
 * newline and ten kilobytes of text are accepted and confined to the keys and channel of their own
 * name (a lock on a similar name is neither taken nor released); braces are refused.
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
		return List.of("order*", "order 42", "order\n42", "order:" + "x".repeat(10 * 1024));
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

	private static Set<String> keys() {
		Set<String> keys = new TreeSet<>();
		for (Object key : (List<?>) redis.node().call("KEYS", "*")) {
			keys.add((String) key);
		}
		return keys;
	}

}
