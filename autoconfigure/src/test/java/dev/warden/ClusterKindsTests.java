package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.lock.DistributedMultiLock;
import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.DistributedReadWriteLock;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.lock.LockOwner;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisClusterExtension;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every kind on a real three-master Redis Cluster, with names on every master: two clients, each
 * with its own cluster client, exclude each other and wake each other's waiters; delayed queues
 * schedule, run, cancel and keep dead letters, and are all found by a scan; a multi-lock spans slots.
 */
class ClusterKindsTests {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private Warden first;

	private Warden second;

	@BeforeEach
	void connect() {
		first = clients.open(redis.cluster());
		second = clients.open(redis.cluster());
	}

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void rateLimitersOnEveryMaster() {
		for (String name : onEveryMaster("rate")) {
			RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1)).withBurst(3);
			assertThat(first.getRateLimiter(name, limit).tryAcquire(2)).isTrue();
			assertThat(second.getRateLimiter(name, limit).tryAcquire(2)).as(name).isFalse();
			assertThat(second.getRateLimiter(name, limit).tryAcquire(1)).as(name).isTrue();
			assertThat(first.getRateLimiter(name, limit).timeUntilAvailable(1)).isPositive();
		}
	}

	/** The fleet registry's two keys are in one slot: each announcement is one script on one master. */
	@Test
	void bothClientsAnnounceThemselvesOnTheCluster() {
		assertThat(first.fleet()).extracting(FleetMember::clientId)
			.containsExactlyInAnyOrder(first.getClientId(), second.getClientId());
		clients.close(second);
		assertThat(first.fleet()).extracting(FleetMember::clientId).containsExactly(first.getClientId());
	}

	@Test
	void aTestClockIsRefusedOnACluster() {
		RedisClusterClient client = RedisClusterClient.create(redis.cluster().uris().stream().map(RedisURI::create).toList());
		try {
			assertThatThrownBy(() -> Warden.builder(client).testClock(true).build())
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("The test clock needs a standalone Redis");
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	@Test
	void fairLocksOnEveryMaster() throws Exception {
		for (String name : onEveryMaster("fair")) {
			DistributedReentrantLock holder = first.getFairLock(name);
			LockOwner owner = first.newOwner();
			assertThat(holder.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			LockOwner next = second.newOwner();
			Future<Boolean> waiting = threads.submit(() -> second.getFairLock(name).tryLock(next, 10, TimeUnit.SECONDS));
			Eventually.await("a waiter queued on " + name, () -> queued(name));
			holder.unlock(owner);
			assertThat(waiting.get(10, TimeUnit.SECONDS)).as(name).isTrue();
			second.getFairLock(name).unlock(next);
			assertThat(holder.isLocked()).isFalse();
		}
	}

	@Test
	void readWriteLocksOnEveryMaster() throws Exception {
		for (String name : onEveryMaster("rw")) {
			DistributedReadWriteLock reading = first.getReadWriteLock(name);
			LockOwner reader = first.newOwner();
			assertThat(reading.readLock().tryLock(reader, 0, TimeUnit.SECONDS)).isTrue();
			LockOwner otherReader = second.newOwner();
			assertThat(second.getReadWriteLock(name).readLock().tryLock(otherReader, 0, TimeUnit.SECONDS)).isTrue();
			second.getReadWriteLock(name).readLock().unlock(otherReader);

			LockOwner writer = second.newOwner();
			Future<Boolean> writing = threads.submit(
					() -> second.getReadWriteLock(name).writeLock().tryLock(writer, 10, TimeUnit.SECONDS));
			Eventually.await("the writer subscribed", () -> second.subscribedChannels() > 0);
			reading.readLock().unlock(reader);
			assertThat(writing.get(10, TimeUnit.SECONDS)).as(name).isTrue();
			assertThat(reading.readLock().tryLock(reader, 0, TimeUnit.SECONDS)).as("excluded by the writer").isFalse();
			second.getReadWriteLock(name).writeLock().unlock(writer);
		}
	}

	@Test
	void semaphoresOnEveryMaster() throws Exception {
		for (String name : onEveryMaster("sem")) {
			DistributedSemaphore semaphore = first.getSemaphore(name);
			assertThat(semaphore.trySetPermits(1)).isTrue();
			assertThat(semaphore.tryAcquire()).isTrue();
			Future<Boolean> waiting = threads.submit(() -> second.getSemaphore(name).tryAcquire(1, 10, TimeUnit.SECONDS));
			Eventually.await("the waiter subscribed", () -> second.subscribedChannels() > 0);
			semaphore.release();
			assertThat(waiting.get(10, TimeUnit.SECONDS)).as(name).isTrue();
			assertThat(semaphore.availablePermits()).isZero();
		}
	}

	@Test
	void permitExpirableSemaphoresOnEveryMaster() throws Exception {
		for (String name : onEveryMaster("permits")) {
			DistributedPermitExpirableSemaphore semaphore = first.getPermitExpirableSemaphore(name);
			assertThat(semaphore.trySetPermits(1)).isTrue();
			Optional<String> permit = semaphore.tryAcquire(0, 30, TimeUnit.SECONDS);
			assertThat(permit).isPresent();
			Future<Optional<String>> waiting = threads
				.submit(() -> second.getPermitExpirableSemaphore(name).tryAcquire(10, 30, TimeUnit.SECONDS));
			Eventually.await("the waiter subscribed", () -> second.subscribedChannels() > 0);
			semaphore.release(permit.orElseThrow());
			Optional<String> next = waiting.get(10, TimeUnit.SECONDS);
			assertThat(next).as(name).isPresent();
			second.getPermitExpirableSemaphore(name).release(next.orElseThrow());
			assertThat(semaphore.availablePermits()).isEqualTo(1);
		}
	}

	@Test
	void latchesOnEveryMaster() throws Exception {
		for (String name : onEveryMaster("latch")) {
			DistributedCountDownLatch latch = first.getCountDownLatch(name);
			assertThat(latch.trySetCount(1)).isTrue();
			Future<Boolean> waiting = threads.submit(() -> second.getCountDownLatch(name).await(10, TimeUnit.SECONDS));
			Eventually.await("the waiter subscribed", () -> second.subscribedChannels() > 0);
			latch.countDown();
			assertThat(waiting.get(10, TimeUnit.SECONDS)).as(name).isTrue();
		}
	}

	@Test
	void aMultiLockSpansMasters() throws Exception {
		List<String> names = onEveryMaster("multi");
		DistributedMultiLock multi = first.getMultiLock(names.stream().map(first::getLock)
			.toArray(DistributedReentrantLock[]::new));
		LockOwner owner = first.newOwner();
		assertThat(multi.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		for (String name : names) {
			assertThat(second.getLock(name).tryLock(second.newOwner(), 0, TimeUnit.SECONDS)).as(name).isFalse();
		}
		multi.unlock(owner);
		for (String name : names) {
			assertThat(second.getLock(name).isLocked()).as(name).isFalse();
		}
	}

	@Test
	void delayedQueuesOnEveryMaster() throws Exception {
		Set<String> ran = ConcurrentHashMap.newKeySet();
		ConsumerOptions once = new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1));
		for (String queue : onEveryMaster("queue")) {
			DelayedQueue<String> consumed = second.getDelayedQueue(queue, String.class);
			consumed.consume(delivery -> {
				if (delivery.payload().equals("fails")) {
					throw new IllegalStateException("always");
				}
				ran.add(queue + "/" + delivery.id());
			}, once);
			DelayedQueue<String> scheduled = first.getDelayedQueue(queue, String.class);
			scheduled.schedule("runs", "x", Duration.ofMillis(50));
			scheduled.schedule("cancelled", "x", Duration.ofSeconds(30));
			scheduled.schedule("dead", "fails", Duration.ZERO);
			assertThat(scheduled.cancel("cancelled")).isTrue();

			Eventually.await(queue + " ran its task", () -> ran.contains(queue + "/runs"));
			Eventually.await(queue + " has its dead letter", () -> !scheduled.deadLetters().isEmpty());
			assertThat(scheduled.deadLetters()).extracting(letter -> letter.id()).containsExactly("dead");
			assertThat(scheduled.contains("cancelled")).isFalse();
			assertThat(scheduled.stats().deadLetters()).isEqualTo(1);
		}
		assertThat(first.queueNames(100)).as("found with SCAN on every master").containsAll(onEveryMaster("queue"));
	}

	@Test
	void taskLimitsOnEveryMaster() throws Exception {
		List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		ConsumerOptions oneAtATime = new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1),
				Duration.ofMinutes(1)).withLimits(dev.warden.task.TaskLimits.concurrency(1));
		for (String queue : onEveryMaster("limited")) {
			DelayedQueue<String> consumed = second.getDelayedQueue(queue, String.class);
			consumed.consume(delivery -> {
				ran.add(queue + "/" + delivery.id());
				if (delivery.id().equals("first")) {
					release.await(30, java.util.concurrent.TimeUnit.SECONDS);
				}
			}, oneAtATime);
			DelayedQueue<String> scheduled = first.getDelayedQueue(queue, String.class);
			scheduled.schedule("first", "x", Duration.ZERO);
			Eventually.await(queue + " runs its first task", () -> ran.contains(queue + "/first"));
			scheduled.schedule("second", "x", Duration.ZERO);
			Eventually.await(queue + " defers its second task", () -> scheduled.stats().deferred() == 1);
		}
		release.countDown();
		for (String queue : onEveryMaster("limited")) {
			Eventually.await(queue + " runs its second task", () -> ran.contains(queue + "/second"));
		}
	}

	/** Three names of the kind, one in the slot range of each master. */
	private static List<String> onEveryMaster(String kind) {
		List<String> names = new ArrayList<>();
		Set<Integer> masters = new TreeSet<>();
		for (int i = 0; i < 1_000 && masters.size() < 3; i++) {
			String name = kind + "-" + i;
			// RedisCluster gives each master an equal range of the 16,384 slots.
			if (masters.add(SlotHash.getSlot(name) * 3 / SlotHash.SLOT_COUNT)) {
				names.add(name);
			}
		}
		assertThat(masters).as("names on every master").hasSize(3);
		return names;
	}

	private boolean queued(String name) {
		for (var node : redis.cluster().nodes()) {
			try {
				Object length = node.call("LLEN", "redisson_lock_queue:{" + name + "}");
				if (length instanceof Long count && count > 0) {
					return true;
				}
			}
			catch (RuntimeException ex) {
				// Another master's slot.
			}
		}
		return false;
	}


}
