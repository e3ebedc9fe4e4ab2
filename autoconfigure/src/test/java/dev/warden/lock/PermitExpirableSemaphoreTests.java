package dev.warden.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PermitExpirableSemaphoreTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void sixteenThreadsOnTwoClientsNeverExceedThePermits() throws Exception {
		clients.open(redis.node()).getPermitExpirableSemaphore("expiring-pool").trySetPermits(2);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			DistributedPermitExpirableSemaphore semaphore = clients.open(redis.node())
				.getPermitExpirableSemaphore("expiring-pool");
			for (int t = 0; t < 16; t++) {
				workers.add(threads.submit(() -> {
					for (int i = 0; i < 10; i++) {
						String permit = semaphore.acquire(30, TimeUnit.SECONDS);
						try {
							most.accumulateAndGet(inside.incrementAndGet(), Math::max);
							inside.decrementAndGet();
						}
						finally {
							semaphore.release(permit);
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(2, TimeUnit.MINUTES);
		}
		assertThat(most.get()).isBetween(1, 2);
		assertThat(clients.open(redis.node()).getPermitExpirableSemaphore("expiring-pool").availablePermits())
			.isEqualTo(2);
	}

	@Test
	void anExpiredPermitReturnsToThePoolAndWakesAWaiter() throws Exception {
		DistributedPermitExpirableSemaphore semaphore = clients.open(redis.node())
			.getPermitExpirableSemaphore("reclaimed");
		semaphore.trySetPermits(1);
		String forgotten = semaphore.acquire(300, TimeUnit.MILLISECONDS);
		assertThat(semaphore.availablePermits()).isZero();

		DistributedPermitExpirableSemaphore other = clients.open(redis.node()).getPermitExpirableSemaphore("reclaimed");
		Optional<String> reclaimed = threads.submit(() -> other.tryAcquire(10, 5, TimeUnit.SECONDS)).get();
		assertThat(reclaimed).isPresent();
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.release(forgotten))
			.withMessageContaining(forgotten);
		other.release(reclaimed.get());
		assertThat(semaphore.availablePermits()).isEqualTo(1);
	}

	@Test
	void badArgumentsFailAndChangeNothing() throws Exception {
		DistributedPermitExpirableSemaphore semaphore = clients.open(redis.node()).getPermitExpirableSemaphore("strict");
		semaphore.trySetPermits(1);
		String permit = semaphore.acquire(10, TimeUnit.SECONDS);
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.release("no-such-permit"));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.trySetPermits(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.acquire(0, TimeUnit.SECONDS));
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.tryAcquire(-1, 1, TimeUnit.SECONDS));
		assertThat(semaphore.tryAcquire(0, 1, TimeUnit.SECONDS)).isEmpty();
		semaphore.release(permit);
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.release(permit));
		assertThat(semaphore.availablePermits()).isEqualTo(1);
	}

}
