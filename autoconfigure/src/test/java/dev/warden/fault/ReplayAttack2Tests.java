package dev.warden.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.warden.Eventually;
import dev.warden.RedisUnavailableException;
import dev.warden.TestClock;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.lock.LockOwner;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.redis.LuaScript;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * More shapes of a connection closing normally (a FIN) after Redis ran a script, beyond
 * {@link ReplayAttackTests}: what a caller or an operator is told must be true of what Redis did.
 */
class ReplayAttack2Tests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private TcpProxy proxy;

	@BeforeEach
	void startAProxy() {
		proxy = TcpProxy.start(redis.node());
	}

	@AfterEach
	void close() {
		proxy.close();
	}

	/** A client whose one command connection goes through the proxy. */
	private Warden throughProxy(Duration commandTimeout) {
		return clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.connections(1).commandTimeout(commandTimeout));
	}

	/**
	 * A completion carried by a claim whose reply is dropped with a FIN: Redis recorded it, so the
	 * task must not run again, and what is logged must not tell the operator it will be delivered
	 * again.
	 */
	@Test
	void aCompletionWhoseReplyIsDroppedIsRecordedOnceAndLoggedTruly() throws Exception {
		ListAppender<ILoggingEvent> log = captureLog("dev.warden.task.redis.Acknowledgements");
		try {
			Warden warden = throughProxy(Duration.ofSeconds(5));
			DelayedQueue<String> queue = warden.getDelayedQueue("attack-ack", String.class);
			AtomicInteger runs = new AtomicInteger();
			CountDownLatch warmed = new CountDownLatch(1);
			CountDownLatch redelivered = new CountDownLatch(1);
			TaskConsumer consumer = queue.consume(delivery -> {
				if (delivery.id().equals("ack-warm")) {
					warmed.countDown();
					return;
				}
				if (runs.incrementAndGet() == 1) {
					// The next request naming this task carries its completion.
					proxy.dropNextReply("ack-task-1");
				}
				else {
					redelivered.countDown();
				}
			}, ConsumerOptions.DEFAULTS.withVisibilityTimeout(Duration.ofSeconds(2)));
			try {
				queue.schedule("ack-warm", "x", Duration.ZERO);
				assertThat(warmed.await(10, TimeUnit.SECONDS)).isTrue();
				Eventually.await("warm-up acknowledged", () -> queue.size() == 0
						&& ((Long) redis.node().call("ZCARD", "warden:task:{attack-ack}:inflight")) == 0);
				clients.open(redis.node()).getDelayedQueue("attack-ack", String.class).schedule("ack-task-1", "x",
						Duration.ZERO);
				Eventually.await("ran", Duration.ofSeconds(10), () -> runs.get() >= 1);
				// Redis recorded the completion: nothing pending, nothing in flight.
				Eventually.await("completed", Duration.ofSeconds(20), () -> queue.size() == 0
						&& ((Long) redis.node().call("ZCARD", "warden:task:{attack-ack}:inflight")) == 0);
				// Three visibility timeouts: a completion not recorded would be delivered again by then.
				assertThat(redelivered.await(6, TimeUnit.SECONDS)).as("delivered again").isFalse();
				assertThat(runs.get()).as("handled once").isEqualTo(1);
				List<String> misleading = log.list.stream()
					.map(ILoggingEvent::getFormattedMessage)
					.filter(message -> message.contains("ack-task-1") && message.contains("it will be delivered again"))
					.toList();
				assertThat(misleading).as("logged as to be delivered again, though it was recorded and is not")
					.isEmpty();
			}
			finally {
				consumer.close();
			}
		}
		finally {
			releaseLog("dev.warden.task.redis.Acknowledgements", log);
		}
	}

	/**
	 * Resetting a rate limiter whose reply is dropped with a FIN: sent again, it would find nothing
	 * to delete, and the caller would be told that the limiter had no permits in use, though this
	 * very call emptied it.
	 */
	@Test
	void aResetWhoseReplyIsDroppedIsNotReportedAsFindingNothing() throws Exception {
		Warden warden = throughProxy(Duration.ofSeconds(5));
		DistributedRateLimiter limiter = warden.getRateLimiter("attack-reset", RateLimit.of(10, Duration.ofHours(1)));
		// Its scripts cached, so that the reply dropped is the reset's own, not a NOSCRIPT.
		assertThat(limiter.reset()).isFalse();
		assertThat(limiter.tryAcquire()).isTrue();
		proxy.dropNextReply("EVALSHA");
		Object outcome;
		try {
			outcome = limiter.reset();
		}
		catch (RedisUnavailableException ex) {
			outcome = ex;
		}
		assertThat(limiter.availablePermits()).as("emptied by the call").isEqualTo(10);
		assertThat(outcome).as("the reset's outcome: it had a permit in use, or it may have run").isNotEqualTo(false);
	}

	/**
	 * Moving the test clock, its reply dropped with a FIN: sent again, it would move the clock twice
	 * as far as asked.
	 */
	@Test
	void aTestClockAdvanceWhoseReplyIsDroppedMovesOnce() throws Exception {
		Warden warden = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.connections(1).commandTimeout(Duration.ofSeconds(5)).testClock(true));
		TestClock clock = warden.testClock().orElseThrow();
		// Its script cached, so that the reply dropped is the advance's own, not a NOSCRIPT; the
		// advance is the first request after the reset that names the clock's key.
		clock.advance(Duration.ofMillis(1));
		clock.reset();
		proxy.dropNextReply(LuaScript.CLOCK_OFFSET_KEY);
		Object outcome;
		try {
			outcome = clock.advance(Duration.ofHours(1));
		}
		catch (RedisUnavailableException ex) {
			outcome = ex;
		}
		assertThat(redis.node().call("GET", LuaScript.CLOCK_OFFSET_KEY)).as("moved once (the call's outcome: %s)", outcome)
			.isEqualTo(Long.toString(Duration.ofHours(1).toMillis()));
	}

	/**
	 * On a Redis Cluster, a script that a master answers with {@code ASK} (its slot is being
	 * migrated, the key is on the importing master) goes to the importing master through the
	 * cluster connection; when that connection closes normally after Redis ran the script, the
	 * script must not run again. Master B imports the semaphore's slot from A; B announces the
	 * proxy's address, so that the client reaches it through the proxy.
	 */
	@Test
	void onAClusterAScriptRedirectedByAskRunsOnce() throws Exception {
		try (ProxiedCluster cluster = ProxiedCluster.withSlotlessMasterBehind(proxy, "ask")) {
			RedisNode a = cluster.owner();
			RedisNode b = cluster.proxied();
			String aId = cluster.id(a);
			String bId = cluster.id(b);
			Warden onCluster = cluster.open(Duration.ofSeconds(5));
			String name = "ask-permits";
			String slot = Integer.toString(SlotHash.getSlot(name));
			b.call("CLUSTER", "SETSLOT", slot, "IMPORTING", aId);
			a.call("CLUSTER", "SETSLOT", slot, "MIGRATING", bId);

			DistributedSemaphore semaphore = onCluster.getSemaphore(name);
			assertThat(semaphore.trySetPermits(5)).as("set through an ASK").isTrue();
			assertThat(b.call("CLUSTER", "COUNTKEYSINSLOT", slot)).as("the semaphore is on B").isEqualTo(1L);
			assertThat(a.call("CLUSTER", "COUNTKEYSINSLOT", slot)).as("and not on A").isEqualTo(0L);
			assertThat(semaphore.tryAcquire()).isTrue();
			semaphore.release();
			assertThat(proxy.openConnections()).as("the client reaches B through the proxy").isPositive();

			proxy.dropNextReply("EVALSHA");
			Object outcome;
			try {
				outcome = semaphore.tryAcquire();
			}
			catch (RedisUnavailableException ex) {
				outcome = ex;
			}
			// A later call on B: anything sent again after the reconnect has run by then.
			Object later;
			try {
				later = onCluster.getSemaphore(name).availablePermits();
			}
			catch (RuntimeException ex) {
				later = ex;
			}
			// The migration ends, so that B answers a plain GET of the slot.
			b.call("CLUSTER", "SETSLOT", slot, "NODE", bId);
			a.call("CLUSTER", "SETSLOT", slot, "NODE", bId);
			assertThat(b.call("GET", name)).as("taken once (the call's outcome: %s; later: %s)", outcome, later)
				.isEqualTo("4");
		}
	}

	/**
	 * A schedule whose reply is dropped with a FIN: it fails (it may have run), the task is
	 * scheduled once, and runs once.
	 */
	@Test
	void aScheduleWhoseReplyIsDroppedSchedulesOnce() throws Exception {
		Warden warden = throughProxy(Duration.ofSeconds(5));
		DelayedQueue<String> queue = warden.getDelayedQueue("attack-schedule", String.class);
		// Its script cached.
		queue.schedule("warm", "x", Duration.ofHours(1));
		proxy.dropNextReply("sched-task-1");
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> queue.schedule("sched-task-1", "x", Duration.ofHours(1)));
		assertThat(queue.contains("sched-task-1")).as("scheduled by the call").isTrue();
		assertThat(queue.size()).isEqualTo(2);
	}

	/**
	 * After {@code SCRIPT FLUSH}, a script goes out by its text; that {@code EVAL}'s reply is
	 * dropped with a FIN: it fails and is not sent again.
	 */
	@Test
	void afterAScriptFlushAnEvalWhoseReplyIsDroppedRunsOnce() throws Exception {
		Warden warden = throughProxy(Duration.ofSeconds(5));
		DistributedSemaphore semaphore = warden.getSemaphore("attack-noscript");
		assertThat(semaphore.trySetPermits(5)).isTrue();
		assertThat(semaphore.tryAcquire()).isTrue();
		semaphore.release();
		redis.node().call("SCRIPT", "FLUSH");
		// EVAL alone, not EVALSHA: the request names it as "$4\r\nEVAL\r\n".
		proxy.dropNextReply("$4\r\nEVAL\r\n");
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(semaphore::tryAcquire);
		assertThat(redis.node().call("GET", "attack-noscript")).as("taken once").isEqualTo("4");
	}

	/**
	 * A call times out while its request is on its way (latency); Redis runs it, and its reply is
	 * dropped with a FIN: it ran once, not again after the reconnect.
	 */
	@Test
	void aCallThatTimedOutBeforeItsConnectionClosedRunsOnce() throws Exception {
		Warden warden = throughProxy(Duration.ofSeconds(1));
		DistributedSemaphore semaphore = warden.getSemaphore("attack-timeout");
		assertThat(semaphore.trySetPermits(5)).isTrue();
		assertThat(semaphore.tryAcquire()).isTrue();
		semaphore.release();
		proxy.latency(1500);
		proxy.dropNextReply("EVALSHA");
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(semaphore::tryAcquire);
		Eventually.await("Redis ran it", Duration.ofSeconds(10),
				() -> "4".equals(redis.node().call("GET", "attack-timeout")));
		proxy.heal();
		// A later call on the reconnected connection: anything replayed before it has run by then.
		assertThat(warden.getSemaphore("attack-timeout-other").trySetPermits(1)).isTrue();
		assertThat(redis.node().call("GET", "attack-timeout")).as("taken once").isEqualTo("4");
	}

	/**
	 * An asynchronous acquisition whose script's reply is dropped with a FIN fails with
	 * {@link RedisUnavailableException}, not a bare Lettuce or JDK exception.
	 */
	@Test
	void anAsyncAcquisitionWhoseReplyIsDroppedFailsAsUnavailable() throws Exception {
		Warden warden = throughProxy(Duration.ofSeconds(5));
		DistributedReentrantLock lock = warden.getLock("attack-async");
		LockOwner owner = new LockOwner("owner-1");
		assertThat(lock.tryLockAsync(owner, 0, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isTrue();
		lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
		proxy.dropNextReply("EVALSHA");
		CompletableFuture<Boolean> acquired = lock.tryLockAsync(owner, 0, TimeUnit.SECONDS);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> acquired.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(RedisUnavailableException.class);
	}

	private static ListAppender<ILoggingEvent> captureLog(String name) {
		Logger logger = (Logger) LoggerFactory.getLogger(name);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		return appender;
	}

	private static void releaseLog(String name, ListAppender<ILoggingEvent> appender) {
		((Logger) LoggerFactory.getLogger(name)).detachAppender(appender);
	}

}
