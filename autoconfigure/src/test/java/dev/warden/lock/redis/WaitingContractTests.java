package dev.warden.lock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.stream.Stream;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedMutex;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.redis.RedisEngine;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The waiting contract that every kind that waits keeps, blocking and asynchronous alike: a wait
 * ends without the synchronizer when nothing frees it; a release wakes a sleeping waiter; so does
 * the holder's lease running out, without any message; an interrupt ends a blocking wait and a
 * cancellation an asynchronous one, taking nothing; a release by the waiter's own client hands a
 * lock over in the release script. Each scenario waits until the waiter sleeps before it acts, so
 * it is the sleep that is woken, not the try made once the subscription is confirmed.
 */
class WaitingContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	/** The waiter's client. */
	private Client here;

	/** Another service's client. */
	private Client elsewhere;

	@BeforeEach
	void connect() {
		here = new Client("here");
		elsewhere = new Client("elsewhere");
	}

	@AfterEach
	void close() {
		threads.shutdownNow();
		here.close();
		elsewhere.close();
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("everyKindBothWays")
	void waitEndsEmptyHandedWhenNothingFreesIt(Kind kind, Mode mode) throws Exception {
		Runnable free = kind.occupy(elsewhere, "ends", 0);
		Waiter waiter = kind.waiter(here, "ends");

		long start = System.nanoTime();
		assertThat(mode.start(waiter, 300, threads).get(10, TimeUnit.SECONDS)).isFalse();

		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(300);
		assertTookNothing(kind, waiter, free);
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("everyKindBothWays")
	void releaseWakesTheSleepingWaiter(Kind kind, Mode mode) throws Exception {
		Runnable free = kind.occupy(elsewhere, "released", 0);
		Waiter waiter = kind.waiter(here, "released");

		CompletableFuture<Boolean> waiting = mode.start(waiter, 30_000, threads);
		awaitAsleep(waiter);
		assertThat(waiting).isNotDone();
		free.run();

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(waiter.holds()).isTrue();
		assertThat(here.engine.subscriptions().subscribedChannels()).isZero();
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("leasedKindsBothWays")
	void holdersLeaseRunningOutWakesTheSleepingWaiterWithoutAMessage(Kind kind, Mode mode) throws Exception {
		kind.occupy(elsewhere, "expires", 500);
		Waiter waiter = kind.waiter(here, "expires");
		long publishes = publishes();

		CompletableFuture<Boolean> waiting = mode.start(waiter, 30_000, threads);
		awaitAsleep(waiter);

		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(waiter.holds()).isTrue();
		// Only the winning try may have announced the expired hold it cleared away, to others.
		assertThat(publishes()).as("messages").isEqualTo(publishes + (kind.announcesExpiredHolds ? 1 : 0));
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Kind.class)
	void interruptEndsABlockingWaitTakingNothing(Kind kind) throws Exception {
		Runnable free = kind.occupy(elsewhere, "interrupted", 0);
		Waiter waiter = kind.waiter(here, "interrupted");
		Thread[] waitingThread = new Thread[1];
		Future<Boolean> waiting = threads.submit(() -> {
			waitingThread[0] = Thread.currentThread();
			return waiter.await(30_000);
		});
		awaitAsleep(waiter);

		waitingThread[0].interrupt();

		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(InterruptedException.class);
		assertTookNothing(kind, waiter, free);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Kind.class)
	void cancellingAnAsynchronousWaitEndsItTakingNothing(Kind kind) throws Exception {
		Runnable free = kind.occupy(elsewhere, "cancelled", 0);
		Waiter waiter = kind.waiter(here, "cancelled");
		CompletableFuture<?> waiting = waiter.awaitAsync(30_000);
		awaitAsleep(waiter);

		assertThat(waiting.cancel(false)).isTrue();

		assertThat(waiting).isCancelled();
		assertTookNothing(kind, waiter, free);
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("handingOverKindsBothWays")
	void releaseByTheWaitersOwnClientHandsTheLockOverWithoutAMessage(Kind kind, Mode mode) throws Exception {
		Runnable free = kind.occupy(here, "handed", 0);
		Waiter waiter = kind.waiter(here, "handed");
		CompletableFuture<Boolean> waiting = mode.start(waiter, 30_000, threads);
		awaitAsleep(waiter);
		long publishes = publishes();

		free.run();

		assertThat(waiter.holds()).as("held as soon as the release returned").isTrue();
		assertThat(publishes()).as("release messages").isEqualTo(publishes);
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("oneWaiterPerReleaseKindsBothWays")
	void waiterJoiningAChannelAlreadyListenedToSleepsAfterOneTry(Kind kind, Mode mode) throws Exception {
		// A fixed lease: no renewal sends a script meanwhile.
		Runnable free = kind.occupy(elsewhere, "joined", 60_000);
		Waiter first = kind.waiter(here, "joined");
		CompletableFuture<Boolean> firstWaiting = mode.start(first, 30_000, threads);
		awaitAsleep(first);
		long scripts = scriptCalls();

		Waiter second = kind.waiter(here, "joined");
		CompletableFuture<Boolean> secondWaiting = mode.start(second, 30_000, threads);
		awaitAsleep(second, 2);

		// Its first try only: the channel was confirmed before it, so a release since then would
		// have woken the first waiter or been kept for the next to sleep.
		assertThat(scriptCalls() - scripts).as("scripts the second waiter ran").isEqualTo(1);
		free.run();
		assertThat(firstWaiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(secondWaiting).isNotDone();
		secondWaiting.cancel(true);
	}

	static Stream<Arguments> oneWaiterPerReleaseKindsBothWays() {
		return bothWays(Kind.REENTRANT);
	}

	static Stream<Arguments> everyKindBothWays() {
		return bothWays(Kind.values());
	}

	static Stream<Arguments> leasedKindsBothWays() {
		return bothWays(Arrays.stream(Kind.values()).filter(kind -> kind.leased).toArray(Kind[]::new));
	}

	static Stream<Arguments> handingOverKindsBothWays() {
		return bothWays(Kind.REENTRANT, Kind.FAIR);
	}

	private static Stream<Arguments> bothWays(Kind... kinds) {
		return Arrays.stream(kinds).flatMap(kind -> Arrays.stream(Mode.values()).map(mode -> Arguments.of(kind, mode)));
	}

	/**
	 * Once a wait ended without the synchronizer: the waiter left its channel, and once the holder
	 * frees it, the waiter does not take it late.
	 */
	private void assertTookNothing(Kind kind, Waiter waiter, Runnable free) {
		assertThat(here.engine.subscriptions().subscribedChannels()).as("channels left subscribed").isZero();
		free.run();
		assertThat(waiter.tookNothing()).as(kind + " taken after the wait ended").isTrue();
	}

	private void awaitAsleep(Waiter waiter) throws InterruptedException {
		awaitAsleep(waiter, 1);
	}

	private void awaitAsleep(Waiter waiter, int count) throws InterruptedException {
		Eventually.await(count + " waiters asleep on " + waiter.channel(), () -> {
			LockWaiters waiters = here.engine.subscriptions().listener(waiter.channel(), LockWaiters.class);
			return waiters != null && waiters.asleep() == count;
		});
	}

	/** EVALSHA calls Redis has executed. */
	private static long scriptCalls() {
		return calls("cmdstat_evalsha:");
	}

	/** PUBLISH calls Redis has executed, those in scripts included. */
	private static long publishes() {
		return calls("cmdstat_publish:");
	}

	private static long calls(String command) {
		String stats = (String) redis.node().call("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith(command)) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

	/** How a scenario waits. */
	enum Mode {

		BLOCKING {
			@Override
			CompletableFuture<Boolean> start(Waiter waiter, long waitMillis, ExecutorService threads) {
				return CompletableFuture.supplyAsync(() -> {
					try {
						return waiter.await(waitMillis);
					}
					catch (InterruptedException ex) {
						throw new CompletionException(ex);
					}
				}, threads);
			}
		},

		ASYNC {
			@Override
			CompletableFuture<Boolean> start(Waiter waiter, long waitMillis, ExecutorService threads) {
				return waiter.awaitAsync(waitMillis)
					.thenApply(outcome -> (outcome instanceof Optional<?> permit) ? permit.isPresent()
							: (Boolean) outcome);
			}
		};

		abstract CompletableFuture<Boolean> start(Waiter waiter, long waitMillis, ExecutorService threads);

	}

	/** A blocking wait. */
	@FunctionalInterface
	interface Await {

		boolean await(long waitMillis) throws InterruptedException;

	}

	/**
	 * One waiter of one synchronizer.
	 *
	 * @param blocking waits, blocking
	 * @param async waits without blocking; completes with whether it was acquired: {@code true}, or
	 * a permit id that is present
	 * @param channel the channel the waiter sleeps on
	 * @param held whether the waiter has what it waited for
	 * @param emptyHanded once the holder has freed it: whether the waiter took nothing
	 */
	record Waiter(Await blocking, LongFunction<CompletableFuture<?>> async, String channel, BooleanSupplier held,
			BooleanSupplier emptyHanded) {

		boolean await(long waitMillis) throws InterruptedException {
			return blocking.await(waitMillis);
		}

		CompletableFuture<?> awaitAsync(long waitMillis) {
			return async.apply(waitMillis);
		}

		boolean holds() {
			return held.getAsBoolean();
		}

		boolean tookNothing() {
			return emptyHanded.getAsBoolean();
		}

	}

	/** Every kind that waits. */
	enum Kind {

		REENTRANT(true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				return holdLock(client.lock(name), client.newOwner(), leaseMillis);
			}

			@Override
			Waiter waiter(Client client, String name) {
				return lockWaiter(client.lock(name), client.newOwner(),
						RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}");
			}
		},

		SIMPLE(true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				return holdLock(client.simpleLock(name), client.newOwner(), leaseMillis);
			}

			@Override
			Waiter waiter(Client client, String name) {
				return lockWaiter(client.simpleLock(name), client.newOwner(),
						RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}");
			}
		},

		FAIR(true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				return holdLock(client.fairLock(name), client.newOwner(), leaseMillis);
			}

			@Override
			Waiter waiter(Client client, String name) {
				LockOwner owner = client.newOwner();
				return lockWaiter(client.fairLock(name), owner,
						RedisDistributedLock.CHANNEL_PREFIX + ":{" + name + "}:" + owner.id());
			}
		},

		READ(true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				return holdLock(client.readWriteLock(name).writeLock(), client.newOwner(), leaseMillis);
			}

			@Override
			Waiter waiter(Client client, String name) {
				return lockWaiter(client.readWriteLock(name).readLock(), client.newOwner(),
						RedisReadWriteLock.CHANNEL_PREFIX + ":{" + name + "}");
			}
		},

		WRITE(true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				return holdLock(client.readWriteLock(name).readLock(), client.newOwner(), leaseMillis);
			}

			@Override
			Waiter waiter(Client client, String name) {
				return lockWaiter(client.readWriteLock(name).writeLock(), client.newOwner(),
						RedisReadWriteLock.CHANNEL_PREFIX + ":{" + name + "}");
			}
		},

		SEMAPHORE(false) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) {
				RedisSemaphore semaphore = new RedisSemaphore(name, client.engine);
				assertThat(semaphore.trySetPermits(1)).isTrue();
				assertThat(semaphore.tryAcquire()).isTrue();
				return semaphore::release;
			}

			@Override
			Waiter waiter(Client client, String name) {
				RedisSemaphore semaphore = new RedisSemaphore(name, client.engine);
				return new Waiter(wait -> semaphore.tryAcquire(1, wait, TimeUnit.MILLISECONDS),
						wait -> semaphore.tryAcquireAsync(1, wait, TimeUnit.MILLISECONDS),
						RedisSemaphore.CHANNEL_PREFIX + ":{" + name + "}", () -> semaphore.availablePermits() == 0,
						() -> semaphore.availablePermits() == 1);
			}
		},

		PERMIT_EXPIRABLE_SEMAPHORE(true, true) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException {
				RedisPermitExpirableSemaphore semaphore = new RedisPermitExpirableSemaphore(name, client.engine);
				assertThat(semaphore.trySetPermits(1)).isTrue();
				String permit = semaphore.tryAcquire(0, (leaseMillis > 0) ? leaseMillis : 60_000, TimeUnit.MILLISECONDS)
					.orElseThrow();
				return () -> semaphore.release(permit);
			}

			@Override
			Waiter waiter(Client client, String name) {
				RedisPermitExpirableSemaphore semaphore = new RedisPermitExpirableSemaphore(name, client.engine);
				return new Waiter(wait -> semaphore.tryAcquire(wait, 60_000, TimeUnit.MILLISECONDS).isPresent(),
						wait -> semaphore.tryAcquireAsync(wait, 60_000, TimeUnit.MILLISECONDS),
						RedisPermitExpirableSemaphore.CHANNEL_PREFIX + ":{" + name + "}",
						() -> semaphore.availablePermits() == 0, () -> semaphore.availablePermits() == 1);
			}
		},

		LATCH(false) {
			@Override
			Runnable occupy(Client client, String name, long leaseMillis) {
				RedisCountDownLatch latch = new RedisCountDownLatch(name, client.engine);
				assertThat(latch.trySetCount(1)).isTrue();
				return latch::countDown;
			}

			@Override
			Waiter waiter(Client client, String name) {
				RedisCountDownLatch latch = new RedisCountDownLatch(name, client.engine);
				// Waiting for a latch takes nothing from it.
				return new Waiter(wait -> latch.await(wait, TimeUnit.MILLISECONDS),
						wait -> latch.awaitAsync(wait, TimeUnit.MILLISECONDS),
						RedisCountDownLatch.CHANNEL_PREFIX + "{" + name + "}", () -> latch.getCount() == 0, () -> true);
			}
		};

		/** Whether its holder has a lease that runs out by itself. */
		final boolean leased;

		/** Whether a try that clears away expired holds announces them to other waiters. */
		final boolean announcesExpiredHolds;

		Kind(boolean leased) {
			this(leased, false);
		}

		Kind(boolean leased, boolean announcesExpiredHolds) {
			this.leased = leased;
			this.announcesExpiredHolds = announcesExpiredHolds;
		}

		/**
		 * Makes the synchronizer busy, held by {@code client}.
		 * @param leaseMillis the hold's lease; 0 for a hold that lasts until freed
		 * @return frees it
		 */
		abstract Runnable occupy(Client client, String name, long leaseMillis) throws InterruptedException;

		/** A new waiter of {@code client}. */
		abstract Waiter waiter(Client client, String name);

		private static Runnable holdLock(DistributedMutex lock, LockOwner owner, long leaseMillis)
				throws InterruptedException {
			boolean held = (leaseMillis > 0) ? lock.tryLock(owner, 0, leaseMillis, TimeUnit.MILLISECONDS)
					: lock.tryLock(owner, 0, TimeUnit.MILLISECONDS);
			assertThat(held).isTrue();
			return () -> lock.unlock(owner);
		}

		private static Waiter lockWaiter(DistributedMutex lock, LockOwner owner, String channel) {
			return new Waiter(wait -> lock.tryLock(owner, wait, TimeUnit.MILLISECONDS),
					wait -> lock.tryLockAsync(owner, wait, TimeUnit.MILLISECONDS), channel, () -> lock.isHeldBy(owner),
					() -> !lock.isHeldBy(owner) && !lock.isLocked());
		}

	}

	/** One service's Warden engine and watchdog. */
	final class Client implements AutoCloseable {

		private final AtomicLong owners = new AtomicLong();

		private final String id;

		final RedisEngine engine;

		final LeaseRenewal renewal;

		Client(String id) {
			this.id = id;
			this.engine = RedisEngine.connect(clients.redisClient(redis.node()), "contract-" + id,
					Duration.ofSeconds(5));
			this.renewal = new LeaseRenewal(engine, 30_000, new LockListener() {
			});
		}

		LockOwner newOwner() {
			return new LockOwner(id + ":" + owners.incrementAndGet());
		}

		RedisDistributedLock lock(String name) {
			return new RedisDistributedLock(name, engine, renewal, Client::noThreadOwner);
		}

		RedisSimpleLock simpleLock(String name) {
			return new RedisSimpleLock(name, engine, renewal, Client::noThreadOwner);
		}

		RedisDistributedLock fairLock(String name) {
			return RedisDistributedLock.fair(name, 5_000, engine, renewal, Client::noThreadOwner);
		}

		RedisReadWriteLock readWriteLock(String name) {
			return new RedisReadWriteLock(name, engine, renewal, Client::noThreadOwner);
		}

		private static LockOwner noThreadOwner() {
			throw new UnsupportedOperationException("owner-bound calls only");
		}

		@Override
		public void close() {
			renewal.close();
			engine.close();
		}

	}

}
