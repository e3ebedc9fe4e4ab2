package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import dev.warden.redis.SpoofedHellos;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisSentinel;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel-managed Redis (a master, a replica, three Sentinels): the application connects through
 * {@code spring.data.redis.sentinel.*} or a Sentinel {@code RedisURI}, every kind works, and after
 * {@code SENTINEL FAILOVER} Warden's connections move to the new master within moments, a lock held
 * across the fail-over stays held, a waiter still gets it, and tasks scheduled before it run.
 */
class SentinelTests {

	private static RedisSentinel redis;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final List<String> lost = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void startSentinels() {
		redis = RedisSentinel.start();
	}

	@AfterAll
	static void stopSentinels() {
		redis.close();
	}

	@BeforeEach
	void awaitAHealthyTopology() {
		// A fail-over in an earlier test leaves the deposed master to be turned into a replica and
		// synced: until then nothing acknowledges a WAIT.
		redis.awaitReplicaInSync();
	}

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void theApplicationConnectsThroughItsSentinelProperties() {
		WardenApplications.runner()
			.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinel.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + redis.sentinelHostsAndPorts())
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				LockOwner owner = warden.newOwner();
				assertThat(warden.getLock("sentinel-auto").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				assertThat(redis.master().call("EXISTS", "sentinel-auto")).isEqualTo(1L);
				warden.getLock("sentinel-auto").unlock(owner);
			});
	}

	@Test
	void everyKindWorksThroughASentinelUri() throws Exception {
		Warden warden = clients.open(sentinelClient());
		LockOwner owner = warden.newOwner();
		for (DistributedReentrantLock lock : new DistributedReentrantLock[] { warden.getLock("s-lock"),
				warden.getFairLock("s-fair"), warden.getReadWriteLock("s-rw").writeLock(),
				warden.getReadWriteLock("s-rw2").readLock() }) {
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).as(lock.getName()).isTrue();
			lock.unlock(owner);
		}
		assertThat(warden.getSemaphore("s-sem").trySetPermits(1)).isTrue();
		assertThat(warden.getSemaphore("s-sem").tryAcquire()).isTrue();
		assertThat(warden.getPermitExpirableSemaphore("s-permits").trySetPermits(1)).isTrue();
		Optional<String> permit = warden.getPermitExpirableSemaphore("s-permits").tryAcquire(0, 10, TimeUnit.SECONDS);
		warden.getPermitExpirableSemaphore("s-permits").release(permit.orElseThrow());
		assertThat(warden.getCountDownLatch("s-latch").trySetCount(1)).isTrue();
		warden.getCountDownLatch("s-latch").countDown();
		assertThat(warden.getCountDownLatch("s-latch").await(1, TimeUnit.SECONDS)).isTrue();
		dev.warden.ratelimit.RateLimit limit = dev.warden.ratelimit.RateLimit.of(1, Duration.ofHours(1));
		assertThat(warden.getRateLimiter("s-rate", limit).tryAcquire()).isTrue();
		assertThat(warden.getRateLimiter("s-rate", limit).tryAcquire()).isFalse();
		DelayedQueue<String> queue = warden.getDelayedQueue("s-queue", String.class);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		queue.consume(delivery -> ran.add(delivery.id()), dev.warden.task.ConsumerOptions.DEFAULTS
			.withLimits(dev.warden.task.TaskLimits.concurrency(1)));
		queue.schedule("t-1", "x", Duration.ofMillis(10));
		queue.schedule("t-2", "x", Duration.ofMillis(10));
		Eventually.await("the tasks ran, one at a time", () -> ran.contains("t-1") && ran.contains("t-2"));
	}

	@Test
	void afterAFailOverCommandsGoToTheNewMasterAndALockHeldAcrossItStaysHeld() throws Exception {
		// Three command connections: every one of them moves.
		Warden holder = clients.open(sentinelClient(), options -> options.connections(3).lockListener(new LockListener() {
			@Override
			public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
				lost.add(lockName);
			}
		}));
		Warden other = clients.open(sentinelClient());
		LockOwner owner = holder.newOwner();
		DistributedReentrantLock held = holder.getLock("across");
		assertThat(held.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		LockOwner waiter = other.newOwner();
		Future<Boolean> waiting = threads.submit(() -> other.getLock("across").tryLock(waiter, 60, TimeUnit.SECONDS));
		DelayedQueue<String> queue = holder.getDelayedQueue("s-failover", String.class);
		for (int i = 0; i < 20; i++) {
			queue.schedule("t-" + i, "x", Duration.ofMillis(500 + 100L * i));
		}
		redis.master().call("WAIT", "1", "5000");

		long start = System.nanoTime();
		RedisNode promoted = redis.failover();
		Set<String> ran = ConcurrentHashMap.newKeySet();
		other.getDelayedQueue("s-failover", String.class).consume(delivery -> ran.add(delivery.id()));

		// Commands reach the new master once Warden has moved (a hold there proves it), on names
		// spread over every connection.
		LockOwner prober = holder.newOwner();
		Eventually.await("locks taken on the new master", Duration.ofSeconds(15), () -> {
			try {
				boolean there = true;
				for (int i = 0; i < 12 && there; i++) {
					DistributedReentrantLock probe = holder.getLock("probe-" + i);
					there = probe.tryLock(prober, 0, TimeUnit.SECONDS)
							&& Long.valueOf(1).equals(promoted.call("EXISTS", "probe-" + i));
					probe.forceUnlock();
				}
				return there;
			}
			catch (RuntimeException ex) {
				return false;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		});
		long movedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		System.out.println("Commands reached the new master " + movedMillis + " ms after SENTINEL FAILOVER was sent");
		assertThat(movedMillis).as("moved to the new master within a few Sentinel announcements").isLessThan(10_000);

		assertThat(held.isHeldBy(owner)).as("the lock held across the fail-over").isTrue();
		held.unlock(owner);
		// Usually at once (its channel resubscribed on the new master), at the latest when the lease it
		// last saw runs out: a release published before its subscription moved is lost to it.
		assertThat(waiting.get(40, TimeUnit.SECONDS)).as("the waiter gets it").isTrue();
		Eventually.await("every task scheduled before the fail-over ran", Duration.ofSeconds(30), () -> ran.size() == 20);
		assertThat(lost).isEmpty();
	}

	@Test
	void announcementsTheSentinelsDoNotConfirmMoveNothingWhileARealFailOverIsFollowed() throws Exception {
		RedisNode master = redis.master();
		RedisNode replica = redis.replica();
		try (RedisEngine engine = RedisEngine.connect(sentinelClient(), "warden-spoofed", Duration.ofSeconds(5))) {
			engine.ping();

			// Every 50 ms for 2 s, on the node Warden listens to, in the name of a real Sentinel (so
			// that the Sentinels, who listen too, are not misled): the replica named the master,
			// which no Sentinel confirms, and another master name's "promotion".
			RedisNode sentinel = redis.sentinels().get(0);
			// The Sentinel's own id (SENTINEL MYID), which its announcements carry, not its run_id.
			String runId = (String) sentinel.call("SENTINEL", "MYID");
			SpoofedHellos.publish(master, Duration.ofMillis(50), 40, i -> SpoofedHellos.from(sentinel.host(),
					sentinel.port(), runId, (i % 2 == 0) ? RedisSentinel.MASTER_NAME : "another-master",
					replica.host(), replica.port()));

			engine.ping();
			assertThat(engine.disconnects()).as("connections lost to the spoofed announcements").isZero();

			RedisNode promoted = redis.failover();
			// From the promotion, which the harness waits for (the Sentinels may take several tries).
			long start = System.nanoTime();
			Eventually.await("commands answered by the new master", Duration.ofSeconds(15), () -> {
				try {
					return engine.infoAsync("server").get(5, TimeUnit.SECONDS)
						.contains("tcp_port:" + promoted.port() + "\r");
				}
				catch (Exception ex) {
					return false;
				}
			});
			long movedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(movedMillis).as("moved to the new master within a few Sentinel announcements").isLessThan(10_000);
			assertThat(engine.disconnects()).as("moved by the fail-over").isPositive();
		}
	}

	@Test
	void underReplicaSyncAcknowledgedSchedulesSurviveAFailOver() throws Exception {
		Warden warden = clients.open(sentinelClient(), options -> options.taskReplicaSync(1, Duration.ofSeconds(2)));
		DelayedQueue<String> queue = warden.getDelayedQueue("s-durable", String.class);
		for (int i = 0; i < 50; i++) {
			queue.schedule("t-" + i, "x", Duration.ofHours(1));
		}

		RedisNode promoted = redis.failover();

		assertThat(promoted.call("HLEN", "warden:task:{s-durable}:tasks")).as("every acknowledged schedule")
			.isEqualTo(50L);
	}

	@Test
	void withTheDefaultsOnThreeConnectionsAcknowledgedSchedulesAndLocksSurviveAFailOver() throws Exception {
		Warden warden = clients.open(sentinelClient(), options -> options.connections(3));
		DelayedQueue<String> queue = warden.getDelayedQueue("s-default", String.class);
		LockOwner owner = warden.newOwner();
		for (int i = 0; i < 50; i++) {
			queue.schedule("t-" + i, "x", Duration.ofHours(1));
			assertThat(warden.getLock("s-default-" + i).tryLock(owner, 0, 60, TimeUnit.SECONDS)).isTrue();
		}

		RedisNode promoted = redis.failover();

		assertThat(promoted.call("HLEN", "warden:task:{s-default}:tasks")).as("every acknowledged schedule")
			.isEqualTo(50L);
		for (int i = 0; i < 50; i++) {
			assertThat(promoted.call("EXISTS", "s-default-" + i)).as("acquisition " + i).isEqualTo(1L);
		}
	}

	@Test
	void withTheDefaultsSchedulesAcknowledgedDuringAFailOverSurviveIt() throws Exception {
		// Two clients schedule without pause across the fail-over. Until Warden hears of the promotion,
		// their writes land on the deposed master, which takes them without a replica (its own was
		// promoted) and loses them when the Sentinels demote it (left undone here: the window stays open).
		List<Warden> wardens = List.of(clients.open(sentinelClient()), clients.open(sentinelClient()));
		RedisNode deposed = redis.master();
		String tasks = "warden:task:{s-across}:tasks";
		AtomicBoolean scheduling = new AtomicBoolean(true);
		Set<String> acknowledged = ConcurrentHashMap.newKeySet();
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		List<AtomicInteger> lastAcknowledged = List.of(new AtomicInteger(-1), new AtomicInteger(-1));
		List<Future<?>> schedulers = new ArrayList<>();
		for (int c = 0; c < wardens.size(); c++) {
			DelayedQueue<String> queue = wardens.get(c).getDelayedQueue("s-across", String.class);
			AtomicInteger last = lastAcknowledged.get(c);
			String prefix = "c" + c + "-";
			schedulers.add(threads.submit(() -> {
				for (int i = 0; scheduling.get() && i < 100_000; i++) {
					String id = prefix + i;
					try {
						queue.schedule(id, "x", Duration.ofHours(1));
						acknowledged.add(id);
						last.set(i);
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
				}
				return null;
			}));
		}
		Eventually.await("schedules acknowledged before the fail-over", () -> acknowledged.size() >= 20);

		RedisNode promoted = redis.failover();
		int[] promotedAt = lastAcknowledged.stream().mapToInt(AtomicInteger::get).toArray();
		// Both clients have moved once a schedule each acknowledged after the promotion is on the new master.
		Eventually.await("both clients scheduling on the new master", Duration.ofSeconds(30), () -> {
			for (int c = 0; c < lastAcknowledged.size(); c++) {
				int last = lastAcknowledged.get(c).get();
				if (last <= promotedAt[c] || !Long.valueOf(1).equals(promoted.call("HEXISTS", tasks, "c" + c + "-" + last))) {
					return false;
				}
			}
			return true;
		});
		scheduling.set(false);
		for (Future<?> scheduler : schedulers) {
			scheduler.get(30, TimeUnit.SECONDS);
		}

		Set<String> kept = new HashSet<>();
		for (Object id : (List<?>) promoted.call("HKEYS", tasks)) {
			kept.add((String) id);
		}
		Set<String> onTheDeposedMasterOnly = new TreeSet<>();
		if ("master".equals(((List<?>) deposed.call("ROLE")).get(0))) {
			for (Object id : (List<?>) deposed.call("HKEYS", tasks)) {
				if (!kept.contains(id)) {
					onTheDeposedMasterOnly.add((String) id);
				}
			}
		}
		long refused = failures.stream().filter(ReplicaSyncException.class::isInstance).count();
		System.out.println(acknowledged.size() + " schedules acknowledged, " + failures.size() + " failed ("
				+ refused + " refused unreplicated), " + onTheDeposedMasterOnly.size()
				+ " written to the deposed master only");
		assertThat(failures).as("calls that failed: each with a retryable exception")
			.allMatch(RedisUnavailableException.class::isInstance);
		assertThat(onTheDeposedMasterOnly).as("schedules written to the deposed master only: none acknowledged")
			.doesNotContainAnyElementsOf(acknowledged);
		assertThat(kept).as("every acknowledged schedule, on the new master").containsAll(acknowledged);
	}

	@Test
	void aLockTakenOnTheDeposedMasterIsReportedLostOnceTheHolderHasMoved() throws Exception {
		// A short watchdog timeout: the lease is renewed every second, and a renewal finds it lost. The
		// fail-over check is off: with it, the deposed master's acquisitions are given back (below).
		Warden holder = clients.open(sentinelClient(), options -> options.watchdogTimeout(Duration.ofSeconds(3))
			.replicaSync(0, Duration.ofSeconds(1))
			.lockListener(new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					lost.add(lockName);
				}
			}));
		Warden checked = clients.open(sentinelClient());
		RedisNode deposed = redis.master();
		LockOwner owner = holder.newOwner();
		assertThat(holder.getLock("warm-up").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		LockOwner checkedOwner = checked.newOwner();
		assertThat(checked.getLock("checked-warm-up").tryLock(checkedOwner, 0, TimeUnit.SECONDS)).isTrue();

		RedisNode promoted = redis.failover();
		// With the check (the default), an acquisition tried in the window is given back on the
		// deposed master, which lost its replica, and tried again until it holds on the new master.
		Future<Boolean> checkedInTheWindow = threads.submit(
				() -> checked.getLock("checked-in-the-window").tryLock(checkedOwner, 30, TimeUnit.SECONDS));
		// Taken at once: usually before Warden has heard of the promotion, on the deposed master.
		DistributedReentrantLock window = holder.getLock("in-the-window");
		assertThat(window.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		boolean onDeposed = Long.valueOf(1).equals(deposed.call("EXISTS", "in-the-window"))
				&& Long.valueOf(0).equals(promoted.call("EXISTS", "in-the-window"));

		if (onDeposed) {
			// Lost with the deposed master: its holder must not go on believing it holds it.
			Eventually.await("the holder told", Duration.ofSeconds(30), () -> lost.contains("in-the-window"));
		}
		else {
			assertThat(window.isHeldBy(owner)).isTrue();
			assertThat(lost).doesNotContain("in-the-window");
		}
		System.out.println("Lock taken right after the fail-over landed on the "
				+ (onDeposed ? "deposed master and was reported lost" : "new master"));
		assertThat(checkedInTheWindow.get(40, TimeUnit.SECONDS)).as("acquired under the check").isTrue();
		assertThat(promoted.call("EXISTS", "checked-in-the-window")).as("on the new master").isEqualTo(1L);
	}

	private RedisClient sentinelClient() {
		RedisURI.Builder uri = RedisURI.Builder.sentinel(redis.sentinels().get(0).host(), redis.sentinels().get(0).port(),
				RedisSentinel.MASTER_NAME);
		for (RedisNode sentinel : redis.sentinels().subList(1, redis.sentinels().size())) {
			uri.withSentinel(sentinel.host(), sentinel.port());
		}
		return clients.redisClient(uri);
	}

}
