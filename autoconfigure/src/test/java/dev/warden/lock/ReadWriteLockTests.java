package dev.warden.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.RedisChannels;
import dev.warden.RedissonExtension;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadWriteLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final RedissonExtension redisson = new RedissonExtension(redis);

	@RegisterExtension
	final WardenClients clients = new WardenClients();


	private final ExecutorService threads = Executors.newCachedThreadPool();

	/** One thread for the other client's thread-bound holds, so it unlocks what it locked. */
	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
		otherThread.shutdownNow();
	}

	@Test
	void readersShareAndAWriterExcludesEveryone() throws Exception {
		DistributedReadWriteLock first = clients.open(redis.node()).getReadWriteLock("doc");
		DistributedReadWriteLock second = clients.open(redis.node()).getReadWriteLock("doc");

		first.readLock().lock();
		assertThat(onThread(() -> second.readLock().tryLock())).isTrue();
		assertThat(onThread(() -> second.writeLock().tryLock())).isFalse();
		assertThat(first.readLock().isLocked()).isTrue();
		assertThat(first.writeLock().isLocked()).isFalse();
		first.readLock().unlock();
		assertThat(onThread(() -> second.writeLock().tryLock())).isFalse();
		onThread(() -> {
			second.readLock().unlock();
			return null;
		});
		assertThat(redis.node().call("EXISTS", "doc")).isEqualTo(0L);

		first.writeLock().lock();
		assertThat(onThread(() -> second.readLock().tryLock())).isFalse();
		assertThat(onThread(() -> second.writeLock().tryLock())).isFalse();
		assertThat(first.writeLock().isLocked()).isTrue();
		first.writeLock().unlock();
		assertThat(onThread(() -> second.readLock().tryLock())).isTrue();
	}

	@Test
	void bothSidesAreReentrantAndTheWriterMayRead() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedReadWriteLock lock = warden.getReadWriteLock("reentrant-rw");
		DistributedReadWriteLock other = clients.open(redis.node()).getReadWriteLock("reentrant-rw");

		lock.writeLock().lock();
		lock.writeLock().lock();
		lock.readLock().lock();
		assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
		assertThat(lock.readLock().getHoldCount()).isEqualTo(1);
		lock.writeLock().unlock();
		lock.writeLock().unlock();
		assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();
		assertThat(lock.readLock().isLocked()).isTrue();
		assertThat(onThread(() -> other.readLock().tryLock())).isTrue();
		assertThat(onThread(() -> other.writeLock().tryLock())).isFalse();
		lock.readLock().unlock();
		assertThatThrownBy(() -> lock.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
		assertThatThrownBy(() -> lock.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void theWatchdogKeepsReadHoldsAlive() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.watchdogTimeout(Duration.ofMillis(300)));
		DistributedReadWriteLock lock = warden.getReadWriteLock("watched-rw");
		lock.readLock().lock();
		DistributedReadWriteLock other = clients.open(redis.node()).getReadWriteLock("watched-rw");
		assertThat(onThread(() -> other.writeLock().tryLock(900, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		lock.readLock().unlock();
		assertThat(onThread(() -> other.writeLock().tryLock(2, TimeUnit.SECONDS))).isTrue();
	}

	@Test
	void concurrentReadersOverlapAndWritersAreAlone() throws Exception {
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			DistributedReadWriteLock lock = clients.open(redis.node()).getReadWriteLock("checked");
			for (int t = 0; t < 8; t++) {
				workers.add(threads.submit(() -> {
					for (int i = 0; i < 40; i++) {
						if (ThreadLocalRandom.current().nextInt(4) == 0) {
							lock.writeLock().lock();
							try {
								if (writers.incrementAndGet() != 1 || readers.get() != 0) {
									violations.incrementAndGet();
								}
								writers.decrementAndGet();
							}
							finally {
								lock.writeLock().unlock();
							}
						}
						else {
							lock.readLock().lock();
							try {
								readers.incrementAndGet();
								if (writers.get() != 0) {
									violations.incrementAndGet();
								}
								Thread.onSpinWait();
								readers.decrementAndGet();
							}
							finally {
								lock.readLock().unlock();
							}
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(2, TimeUnit.MINUTES);
		}
		assertThat(violations).hasValue(0);
		assertThat(redis.node().call("EXISTS", "checked")).isEqualTo(0L);
	}

	@Test
	void readersOnTwoClientsHoldTheLockAtTheSameTime() throws Exception {
		CyclicBarrier allInside = new CyclicBarrier(4);
		List<Future<?>> readers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			DistributedReadWriteLock lock = clients.open(redis.node()).getReadWriteLock("overlap");
			for (int t = 0; t < 2; t++) {
				readers.add(threads.submit(() -> {
					lock.readLock().lock();
					try {
						// Only passes if all four readers hold the read lock at once.
						allInside.await(10, TimeUnit.SECONDS);
					}
					finally {
						lock.readLock().unlock();
					}
					return null;
				}));
			}
		}
		for (Future<?> reader : readers) {
			reader.get(30, TimeUnit.SECONDS);
		}
		assertThat(redis.node().call("EXISTS", "overlap")).isEqualTo(0L);
	}

	@Test
	void interoperatesWithRedissonReadWriteLock() throws Exception {
		RReadWriteLock theirs = redisson.client().getReadWriteLock("shared-rw");
		DistributedReadWriteLock ours = clients.open(redis.node()).getReadWriteLock("shared-rw");
		ExecutorService redissonThread = Executors.newSingleThreadExecutor();
		try {
			redissonThread.submit(() -> theirs.readLock().lock()).get();
			assertThat(ours.readLock().tryLock()).isTrue();
			assertThat(ours.writeLock().tryLock()).isFalse();
			ours.readLock().unlock();

			// A lease of its own: Redisson's reader below can miss the release message when it arrives
			// before the reader blocks (Redisson wakes only the readers already queued on a read unlock),
			// and then waits for the lease instead.
			Future<Boolean> ourWriter = threads.submit(() -> ours.writeLock().tryLock(20, 8, TimeUnit.SECONDS));
			RedisChannels.awaitSubscribers(redis.node(), "redisson_rwlock:{shared-rw}", 1);
			redissonThread.submit(() -> theirs.readLock().unlock()).get();
			assertThat(ourWriter.get(5, TimeUnit.SECONDS)).isTrue();
			// Our waiter's subscription ends once it holds the lock: only then does a subscriber count
			// below stand for Redisson's reader alone.
			RedisChannels.awaitSubscribers(redis.node(), "redisson_rwlock:{shared-rw}", 0);

			assertThat(redissonThread.submit(() -> theirs.readLock().tryLock()).get()).isFalse();
			Future<Boolean> theirReader = redissonThread.submit(() -> theirs.readLock().tryLock(20, 10, TimeUnit.SECONDS));
			RedisChannels.awaitSubscribers(redis.node(), "redisson_rwlock:{shared-rw}", 1);
			threads.submit(() -> ours.writeLock().unlock()).get();
			assertThat(theirReader.get(15, TimeUnit.SECONDS)).isTrue();
			redissonThread.submit(() -> theirs.readLock().unlock()).get();
		}
		finally {
			redissonThread.shutdownNow();
		}
	}

	private <T> T onThread(java.util.concurrent.Callable<T> action) throws Exception {
		return otherThread.submit(action).get(30, TimeUnit.SECONDS);
	}

}
