package dev.warden.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.RedisChannels;
import dev.warden.RedissonExtension;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RSemaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SemaphoreAndLatchTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final RedissonExtension redisson = new RedissonExtension(redis);

	@RegisterExtension
	final WardenClients clients = new WardenClients();


	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void sixteenThreadsOnTwoClientsNeverExceedThePermits() throws Exception {
		clients.open(redis.node()).getSemaphore("pool").trySetPermits(3);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			DistributedSemaphore semaphore = clients.open(redis.node()).getSemaphore("pool");
			for (int t = 0; t < 16; t++) {
				workers.add(threads.submit(() -> {
					for (int i = 0; i < 20; i++) {
						semaphore.acquire();
						try {
							most.accumulateAndGet(inside.incrementAndGet(), Math::max);
							Thread.onSpinWait();
							inside.decrementAndGet();
						}
						finally {
							semaphore.release();
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(2, TimeUnit.MINUTES);
		}
		assertThat(most.get()).isBetween(1, 3);
		assertThat(clients.open(redis.node()).getSemaphore("pool").availablePermits()).isEqualTo(3);
	}

	@Test
	void semaphoreBasics() throws Exception {
		DistributedSemaphore semaphore = clients.open(redis.node()).getSemaphore("basics");
		assertThat(semaphore.tryAcquire()).isFalse();
		assertThat(semaphore.trySetPermits(2)).isTrue();
		assertThat(semaphore.trySetPermits(5)).isFalse();
		assertThat(semaphore.tryAcquire(2, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(semaphore.availablePermits()).isZero();

		long start = System.nanoTime();
		assertThat(semaphore.tryAcquire(1, 200, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(200);

		DistributedSemaphore other = clients.open(redis.node()).getSemaphore("basics");
		Future<Boolean> waiting = threads.submit(() -> other.tryAcquire(2, 20, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_sc:{basics}", 1);
		semaphore.release(2);
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void semaphoreBadArgumentsChangeNothing() {
		DistributedSemaphore semaphore = clients.open(redis.node()).getSemaphore("bad");
		semaphore.trySetPermits(1);
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.trySetPermits(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.release(0));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.release(-2));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.tryAcquire(0, 0, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.tryAcquire(1, -1, TimeUnit.SECONDS));
		assertThat(semaphore.availablePermits()).isEqualTo(1);
	}

	@Test
	void fiveWaitersOnTwoClientsAreReleasedByTheLastCountDown() throws Exception {
		DistributedCountDownLatch latch = clients.open(redis.node()).getCountDownLatch("start");
		assertThat(latch.trySetCount(3)).isTrue();
		assertThat(latch.trySetCount(9)).isFalse();
		List<Future<Boolean>> waiters = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			DistributedCountDownLatch view = clients.open(redis.node()).getCountDownLatch("start");
			for (int t = 0; t < (c == 0 ? 3 : 2); t++) {
				waiters.add(threads.submit(() -> view.await(30, TimeUnit.SECONDS)));
			}
		}
		RedisChannels.awaitSubscribers(redis.node(), "redisson_countdownlatch__channel__{start}", 2);
		latch.countDown();
		latch.countDown();
		assertThat(latch.getCount()).isEqualTo(1);
		assertThat(waiters).noneMatch(Future::isDone);
		latch.countDown();
		for (Future<Boolean> waiter : waiters) {
			assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(latch.getCount()).isZero();
		assertThat(latch.await(0, TimeUnit.SECONDS)).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> latch.trySetCount(-1));
	}

	@Test
	void semaphoreInteroperatesWithRedisson() throws Exception {
		RSemaphore theirs = redisson.client().getSemaphore("shared-semaphore");
		DistributedSemaphore ours = clients.open(redis.node()).getSemaphore("shared-semaphore");
		assertThat(theirs.trySetPermits(1)).isTrue();
		assertThat(ours.trySetPermits(1)).isFalse();
		assertThat(ours.tryAcquire()).isTrue();
		assertThat(theirs.tryAcquire()).isFalse();

		Future<Boolean> redissonWaiter = threads.submit(() -> theirs.tryAcquire(20, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_sc:{shared-semaphore}", 1);
		ours.release();
		assertThat(redissonWaiter.get(5, TimeUnit.SECONDS)).isTrue();

		Future<Boolean> wardenWaiter = threads.submit(() -> ours.tryAcquire(1, 20, TimeUnit.SECONDS));
		RedisChannels.awaitSubscribers(redis.node(), "redisson_sc:{shared-semaphore}", 1);
		theirs.release();
		assertThat(wardenWaiter.get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void latchInteroperatesWithRedisson() throws Exception {
		RCountDownLatch theirs = redisson.client().getCountDownLatch("shared-latch");
		DistributedCountDownLatch ours = clients.open(redis.node()).getCountDownLatch("shared-latch");
		assertThat(theirs.trySetCount(2)).isTrue();
		assertThat(ours.getCount()).isEqualTo(2);

		Future<Boolean> wardenWaiter = threads.submit(() -> ours.await(20, TimeUnit.SECONDS));
		CountDownLatch redissonStarted = new CountDownLatch(1);
		Future<Boolean> redissonWaiter = threads.submit(() -> {
			redissonStarted.countDown();
			return theirs.await(20, TimeUnit.SECONDS);
		});
		assertThat(redissonStarted.await(5, TimeUnit.SECONDS)).isTrue();
		RedisChannels.awaitSubscribers(redis.node(), "redisson_countdownlatch__channel__{shared-latch}", 2);
		ours.countDown();
		theirs.countDown();
		assertThat(wardenWaiter.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(redissonWaiter.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(theirs.getCount()).isZero();
	}


}
