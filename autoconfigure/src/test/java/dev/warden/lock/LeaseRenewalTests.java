package dev.warden.lock;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.redis.LeaseRenewal;
import dev.warden.test.redis.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseRenewalTests {

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
	void closingAClientReleasesTheLocksItHoldsUnderTheWatchdogAtOnce() throws Exception {
		Warden closing = clients.open(redis.node());
		LockOwner owner = closing.newOwner();
		DistributedReentrantLock watched = closing.getLock("held-at-close");
		assertThat(watched.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(watched.tryLock(owner, 0, TimeUnit.SECONDS)).as("re-entered").isTrue();
		DistributedReentrantLock write = closing.getReadWriteLock("rw-at-close").writeLock();
		assertThat(write.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(closing.getLock("leased-at-close").tryLock(owner, 0, 60, TimeUnit.SECONDS)).isTrue();
		Warden waiting = clients.open(redis.node());
		java.util.concurrent.Future<Boolean> waiter = threads
			.submit(() -> waiting.getLock("held-at-close").tryLock(waiting.newOwner(), 20, TimeUnit.SECONDS));
		dev.warden.RedisChannels.awaitSubscribers(redis.node(), "redisson_lock__channel:{held-at-close}", 1);

		clients.close(closing);

		assertThat(waiter.get(10, TimeUnit.SECONDS)).as("taken long before the 30 s lease ran out").isTrue();
		assertThat(redis.node().call("EXISTS", "rw-at-close")).isEqualTo(0L);
		// A hold with a lease of its own is the caller's promise to let it run out.
		assertThat(redis.node().call("EXISTS", "leased-at-close")).isEqualTo(1L);
	}

	@Test
	void cancelledRenewalNeverRefreshesTheKeyAgain() throws Exception {
		// Renewals every 10 ms race the unlocks below; none may touch the explicit-lease hold after.
		Warden warden = clients.open(redis.node(), options -> options.watchdogTimeout(Duration.ofMillis(30)));
		DistributedReentrantLock lock = warden.getLock("renewal-race");
		for (int i = 0; i < 300; i++) {
			lock.lock();
			lock.unlock();
		}
		assertThat(warden.activeLeaseRenewals()).isZero();

		assertThat(lock.tryLock(0, 5, TimeUnit.SECONDS)).isTrue();
		// Outlast several renewal periods: a stray renewal would cut the lease to 30 ms.
		DistributedReentrantLock contender = clients.open(redis.node()).getLock("renewal-race");
		assertThat(threads.submit(() -> contender.tryLock(200, TimeUnit.MILLISECONDS)).get()).isFalse();
		assertThat(lock.remainingTimeToLive()).isBetween(3_000L, 5_000L);
		assertThat(warden.activeLeaseRenewals()).isZero();
		lock.unlock();
	}

	@Test
	void renewalStopsOnlyAtTheFinalRelease() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.watchdogTimeout(Duration.ofMillis(300)));
		DistributedReentrantLock lock = warden.getLock("nested");
		lock.lock();
		lock.lock();
		lock.unlock();
		assertThat(warden.activeLeaseRenewals()).isEqualTo(1);

		DistributedReentrantLock contender = clients.open(redis.node()).getLock("nested");
		assertThat(threads.submit(() -> contender.tryLock(900, TimeUnit.MILLISECONDS)).get()).isFalse();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		lock.unlock();
		assertThat(warden.activeLeaseRenewals()).isZero();
	}

	@Test
	void lostLeaseIsReportedToTheListenerAndLogged() throws Exception {
		ListAppender<ILoggingEvent> log = captureLog();
		CountDownLatch lost = new CountDownLatch(1);
		AtomicReference<String> lostLock = new AtomicReference<>();
		LockListener listener = new LockListener() {
			@Override
			public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
				lostLock.set(lockName + " " + owner + " " + cause);
				lost.countDown();
			}
		};
		Warden warden = clients.open(redis.node(),
				options -> options.watchdogTimeout(Duration.ofMillis(150)).lockListener(listener));
		DistributedReentrantLock lock = warden.getLock("stolen");
		lock.lock();
		redis.node().call("DEL", "stolen");

		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(lostLock.get()).isEqualTo("stolen " + warden.currentThreadOwner() + " null");
		assertThat(warden.activeLeaseRenewals()).isZero();
		assertThat(log.list).anySatisfy(event -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains("'stolen'");
		});
	}

	private static ListAppender<ILoggingEvent> captureLog() {
		Logger logger = (Logger) LoggerFactory.getLogger(LeaseRenewal.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		return appender;
	}


}
