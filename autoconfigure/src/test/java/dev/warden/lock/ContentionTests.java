package dev.warden.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.RedisChannels;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class ContentionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newFixedThreadPool(16);

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void twoClientsWithEightThreadsEachLoseNoIncrement() throws Exception {
		List<Future<?>> workers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			Warden warden = clients.open(redis.node());
			RedisCommands<String, String> counter = clients.redisClient(redis.node()).connect().sync();
			for (int t = 0; t < 8; t++) {
				workers.add(threads.submit(() -> {
					DistributedReentrantLock lock = warden.getLock("counter-lock");
					for (int i = 0; i < 500; i++) {
						lock.lock();
						try {
							// A plain read-modify-write: only mutual exclusion keeps it exact.
							String value = counter.get("counter");
							int next = (value == null) ? 1 : Integer.parseInt(value) + 1;
							counter.set("counter", Integer.toString(next));
						}
						finally {
							lock.unlock();
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(5, TimeUnit.MINUTES);
		}
		assertThat(redis.node().call("GET", "counter")).isEqualTo("8000");
		assertThat(redis.node().call("EXISTS", "counter-lock")).isEqualTo(0L);
	}

	@Test
	void waitersThatGiveUpWhileTheLockIsHandedAroundLeaveNothingHeld() throws Exception {
		// Short waits on a lock handed from thread to thread: some waits end just as a release
		// claims the waiter. Each such waiter either takes the lock or leaves without a hold.
		Warden warden = clients.open(redis.node());
		RedisCommands<String, String> counter = clients.redisClient(redis.node()).connect().sync();
		List<Future<Integer>> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			int thread = t;
			workers.add(threads.submit(() -> {
				DistributedReentrantLock lock = warden.getLock("short-waits");
				int acquired = 0;
				for (int i = 0; i < 300; i++) {
					if (!lock.tryLock(1 + (i + thread) % 3, TimeUnit.MILLISECONDS)) {
						continue;
					}
					try {
						acquired++;
						String value = counter.get("short-waits-counter");
						int next = (value == null) ? 1 : Integer.parseInt(value) + 1;
						counter.set("short-waits-counter", Integer.toString(next));
					}
					finally {
						lock.unlock();
					}
				}
				return acquired;
			}));
		}
		int acquired = 0;
		for (Future<Integer> worker : workers) {
			acquired += worker.get(5, TimeUnit.MINUTES);
		}
		assertThat(acquired).isPositive();
		assertThat(redis.node().call("GET", "short-waits-counter")).isEqualTo(Integer.toString(acquired));
		assertThat(redis.node().call("EXISTS", "short-waits")).isEqualTo(0L);
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void tenThousandContendedNamesLeaveNoSubscriptionBehind() throws Exception {
		Warden holder = clients.open(redis.node());
		Warden waiter = clients.open(redis.node());
		int names = 10_000;
		LockOwner owner = holder.newOwner();
		for (int i = 0; i < names; i++) {
			assertThat(holder.getLock("contended:" + i).tryLock(owner, 0, 60, TimeUnit.SECONDS)).isTrue();
		}

		List<Future<Boolean>> attempts = new ArrayList<>();
		for (int t = 0; t < 16; t++) {
			int first = t;
			attempts.add(threads.submit(() -> {
				boolean anyAcquired = false;
				for (int i = first; i < names; i += 16) {
					anyAcquired |= waiter.getLock("contended:" + i).tryLock(1, TimeUnit.MILLISECONDS);
				}
				return anyAcquired;
			}));
		}
		for (Future<Boolean> attempt : attempts) {
			assertThat(attempt.get(5, TimeUnit.MINUTES)).isFalse();
		}
		assertThat(waiter.subscribedChannels()).isZero();
		RedisChannels.awaitNoChannels(redis.node(), "redisson_lock__channel:*");
	}

}
