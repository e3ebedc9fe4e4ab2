package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.warden.json.JsonBinding;
import dev.warden.json.JsonBindings;
import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedMultiLock;
import dev.warden.lock.DistributedMutex;
import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.DistributedReadWriteLock;
import dev.warden.lock.DistributedRedLock;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.lock.DistributedSimpleLock;
import dev.warden.lock.LockArguments;
import dev.warden.lock.LockFactory;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.lock.MultiLock;
import dev.warden.lock.RedLock;
import dev.warden.lock.redis.LeaseRenewal;
import dev.warden.lock.redis.RedisCountDownLatch;
import dev.warden.lock.redis.RedisDistributedLock;
import dev.warden.lock.redis.RedisPermitExpirableSemaphore;
import dev.warden.lock.redis.RedisReadWriteLock;
import dev.warden.lock.redis.ReplicaSync;
import dev.warden.lock.redis.RedisSemaphore;
import dev.warden.lock.redis.RedisSimpleLock;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.redis.RedisRateLimiter;
import dev.warden.redis.EvictionPolicyCheck;
import dev.warden.redis.Fleet;
import dev.warden.redis.KeyNamespace;
import dev.warden.redis.ReplicaCount;
import dev.warden.redis.RedisEngine;
import dev.warden.redis.StoredFormats;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.DelayedQueueFactory;
import dev.warden.task.Misfire;
import dev.warden.task.PayloadCheck;
import dev.warden.task.PayloadCodec;
import dev.warden.task.RecurringJob;
import dev.warden.task.QueueStats;
import dev.warden.task.RecurringJobRunner;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskListener;
import dev.warden.task.TaskWrite;
import dev.warden.task.TaskWriteDeferral;
import dev.warden.task.redis.Consumers;
import dev.warden.task.redis.JsonPayloadCodec;
import dev.warden.task.redis.QueueCatalog;
import dev.warden.task.redis.RecurringJobs;
import dev.warden.task.redis.RedisDelayedQueue;
import dev.warden.task.redis.TaskWorkers;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * A Warden client: the entry point to distributed locks on one Redis.
 * <p>
 * A client has its own id (a UUID), opens two connections of its own on the application's
 * {@link RedisClient} (one for commands, shared by all callers, and one for pub/sub) and one
 * scheduler thread for lease renewals and its announcements to the other instances on its Redis
 * ({@link #fleet()}). Two clients in one JVM behave as two services. Closing the client releases the
 * locks it holds under the watchdog, stops its renewals, withdraws its announcement and closes its
 * connections; the {@code RedisClient} stays the application's.
 *
 * <pre>{@code
 * RedisClient redis = RedisClient.create("redis://localhost:6379");
 * try (Warden warden = Warden.create(redis)) {
 *     DistributedReentrantLock lock = warden.getLock("inventory:sku-1");
 *     lock.lock();
 *     try {
 *         // one holder at a time, across every service on this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public final class Warden implements LockFactory, DelayedQueueFactory, RecurringJobRunner, AutoCloseable {

	private final String clientId;

	private final RedisEngine engine;

	private final LeaseRenewal leaseRenewal;

	private final AtomicLong detachedOwners = new AtomicLong();

	private final AtomicBoolean closed = new AtomicBoolean();

	// Thread ids are never reused by the JVM, so each thread's owner can be built once.
	private final ThreadLocal<LockOwner> threadOwners;

	private final JsonBinding json;

	/** The master's replicas, for the automatic replica check. */
	private final ReplicaCount replicaCount;

	private final Duration fairLockWaiterTimeout;

	private final List<Warden> redLockNodes;

	private final LockListener lockListener;

	private final Consumers consumers;

	/** What {@link Builder#lockNamePrefix(String)} set: put in front of every name given for a lock. */
	private final String lockNamePrefix;

	/** The lock factory of {@code @DistributedLock}: names as given, without {@link #lockNamePrefix}. */
	private final LockFactory unprefixedLocks = new UnprefixedLocks();

	/** The instances on this Redis, and the stored formats this client writes because of them. */
	private final Fleet fleet;

	/** Payloads as stored: the writes that {@link #applyTaskWrites} makes carry them encoded. */
	private static final PayloadCodec<String> STORED = new PayloadCodec<>() {

		@Override
		public String encode(String payload) {
			return payload;
		}

		@Override
		public String decode(String stored) {
			return stored;
		}

	};

	private Warden(Builder builder, RedisEngine engine) {
		this.clientId = builder.clientId;
		this.threadOwners = ThreadLocal.withInitial(this::newThreadOwner);
		this.engine = engine;
		this.replicaCount = new ReplicaCount(engine);
		this.leaseRenewal = new LeaseRenewal(engine, builder.watchdogTimeout.toMillis(), builder.lockListener,
				builder.replicaSync.counting(replicaCount));
		this.json = (builder.json != null) ? builder.json : JsonBindings.detect();
		WardenClasses.preload(json);
		this.fairLockWaiterTimeout = builder.fairLockWaiterTimeout;
		this.lockListener = builder.lockListener;
		this.lockNamePrefix = builder.lockNamePrefix;
		this.redLockNodes = connectRedLockNodes(builder);
		this.fleet = new Fleet(engine, clientId, StoredFormats.CURRENT, builder.fleetAnnounceInterval,
				builder.namespace.name());
		this.consumers = new Consumers(
				new TaskWorkers(builder.taskConcurrency, "warden-task-" + shortId(clientId) + "-",
						builder.taskVirtualThreads),
				clientId,
				builder.taskDefaults, builder.taskSweepInterval, builder.taskClaimAhead, builder.shutdownGrace,
				builder.taskMaxPayloadBytes, builder.taskReplicaSync.counting(replicaCount));
		builder.taskQueueDefaults.forEach(consumers::setQueueDefaults);
		consumers.setDeadLetterRetention(builder.taskDeadLetterRetention);
		consumers.setNewerFormatGrace(builder.taskNewerFormatGrace);
		consumers.setListener(builder.taskListener);
		consumers.setObservationRegistry(builder.observationRegistry);
		consumers.setDeferral(builder.taskWriteDeferral);
		consumers.setTaskFormat(() -> fleet.writeFormat(StoredFormats.Family.TASKS));
	}

	/**
	 * Creates a client with the default options.
	 * @param client the application's Lettuce client
	 * @return a connected client
	 * @throws RedisUnavailableException when Redis cannot be reached
	 */
	public static Warden create(RedisClient client) {
		return builder(client).build();
	}

	/**
	 * Creates a client for a Redis Cluster with the default options.
	 * @param client the application's Lettuce cluster client
	 * @return a connected client
	 * @throws RedisUnavailableException when Redis cannot be reached
	 */
	public static Warden create(RedisClusterClient client) {
		return builder(client).build();
	}

	/**
	 * Starts building a client.
	 * @param client the application's Lettuce client: a {@link RedisClient} (standalone or
	 * Sentinel) or a {@link RedisClusterClient}
	 * @return a builder
	 */
	public static Builder builder(AbstractRedisClient client) {
		return new Builder(client);
	}

	/** {@return this client's id: the {@code <clientId>} of every owner id it creates} */
	public String getClientId() {
		return clientId;
	}

	/**
	 * Returns the reentrant lock of that name. The name is the lock's Redis key, after the
	 * {@linkplain Builder#lockNamePrefix(String) lock name prefix} (none by default).
	 * @param name the lock name; must not be blank
	 * @return a lightweight view of the lock
	 */
	@Override
	public DistributedReentrantLock getLock(String name) {
		return new RedisDistributedLock(prefixed(name, "lock"), engine, leaseRenewal, this::currentThreadOwner);
	}

	/**
	 * The {@linkplain Builder#lockNamePrefix(String) lock name prefix} in front of {@code name}.
	 * @param name the name given
	 * @param kind what is named, for the message
	 * @return the Redis key
	 */
	private String prefixed(String name, String kind) {
		return lockNamePrefix.isEmpty() ? name : lockNamePrefix + LockArguments.requireName(name, kind);
	}

	/**
	 * What {@link Builder#lockNamePrefix(String)} set, put in front of every name given for a lock;
	 * empty by default.
	 * @return the prefix, or an empty string
	 */
	public String getLockNamePrefix() {
		return lockNamePrefix;
	}

	/**
	 * The namespace of the keys and channels this client names itself: tasks, recurring plans, rate
	 * limiters, fencing counters ({@code warden} by default).
	 * @return the namespace
	 */
	public String getNamespace() {
		return engine.namespace().name();
	}

	/**
	 * This client's locks named by their Redis keys exactly as given, without the
	 * {@linkplain Builder#lockNamePrefix(String) lock name prefix}: the factory of
	 * {@code @DistributedLock}, whose names carry {@code warden.lock.key-prefix} instead. The same
	 * as this client when it has no lock name prefix.
	 * @return the lock factory
	 */
	public LockFactory unprefixedLocks() {
		return lockNamePrefix.isEmpty() ? this : unprefixedLocks;
	}

	/** The locks of {@link #unprefixedLocks()}. */
	private final class UnprefixedLocks implements LockFactory {

		@Override
		public DistributedReentrantLock getLock(String name) {
			return new RedisDistributedLock(name, engine, leaseRenewal, Warden.this::currentThreadOwner);
		}

		@Override
		public DistributedReentrantLock getFairLock(String name) {
			return RedisDistributedLock.fair(name, fairLockWaiterTimeout.toMillis(), engine, leaseRenewal,
					Warden.this::currentThreadOwner);
		}

		@Override
		public DistributedSimpleLock getSimpleLock(String name) {
			return new RedisSimpleLock(name, engine, leaseRenewal, Warden.this::currentThreadOwner);
		}

		@Override
		public DistributedReadWriteLock getReadWriteLock(String name) {
			return new RedisReadWriteLock(name, engine, leaseRenewal, Warden.this::currentThreadOwner);
		}

		@Override
		public LockOwner currentThreadOwner() {
			return Warden.this.currentThreadOwner();
		}

		@Override
		public LockOwner newOwner() {
			return Warden.this.newOwner();
		}

		@Override
		public String toString() {
			return "Warden client " + clientId + ", lock names unprefixed";
		}

	}

	/**
	 * Returns the RedLock of that name over the nodes given to
	 * {@link Builder#redLockNodes(List, Duration)}.
	 * @param name the lock's name, its key on every node; must not be blank
	 * @return the lock
	 * @throws IllegalStateException when fewer than 3 nodes are configured
	 */
	public DistributedRedLock getRedLock(String name) {
		List<DistributedReentrantLock> locks = new ArrayList<>(redLockNodes.size());
		String key = prefixed(name, "lock");
		for (Warden node : redLockNodes) {
			locks.add(node.getLock(key));
		}
		return new RedLock(key, locks, this::currentThreadOwner);
	}

	private static List<Warden> connectRedLockNodes(Builder builder) {
		List<Warden> nodes = new ArrayList<>();
		try {
			for (AbstractRedisClient client : builder.redLockClients) {
				Builder node = Warden.builder(client)
					.connections(builder.connections)
					.commandTimeout(builder.redLockNodeTimeout)
					.namespace(builder.namespace.name());
				// A RedLock node is not this application's Redis: nothing to announce there.
				node.fleetAnnounce = false;
				nodes.add(node.build());
			}
		}
		catch (RuntimeException ex) {
			nodes.forEach(Warden::close);
			throw ex;
		}
		return List.copyOf(nodes);
	}

	/**
	 * Returns a lock over several locks, taken all or nothing in the order of their names.
	 * @param locks the locks (from this client); at least one, distinct
	 * @return the multi-lock
	 */
	public DistributedMultiLock getMultiLock(DistributedMutex... locks) {
		return new MultiLock(java.util.Arrays.asList(locks), this::currentThreadOwner);
	}

	/**
	 * Returns the fair lock of that name: waiters acquire it in the order they asked, across
	 * clients. The name is its Redis key (after the lock name prefix, if any); the layout is
	 * Redisson's fair lock.
	 * @param name the lock name; must not be blank
	 * @return a lightweight view of the lock
	 */
	@Override
	public DistributedReentrantLock getFairLock(String name) {
		return RedisDistributedLock.fair(prefixed(name, "lock"), fairLockWaiterTimeout.toMillis(), engine,
				leaseRenewal, this::currentThreadOwner);
	}

	/**
	 * Returns the simple lock of that name: the plain mutex of one Redis string holding the owner's
	 * id, acquired with one script call and released with a compare-and-delete. It is not
	 * reentrant: an owner that holds it and asks again fails with {@link IllegalStateException}.
	 * The name is its Redis key (after the lock name prefix, if any).
	 * @param name the lock name; must not be blank
	 * @return a lightweight view of the lock
	 */
	@Override
	public DistributedSimpleLock getSimpleLock(String name) {
		return new RedisSimpleLock(prefixed(name, "lock"), engine, leaseRenewal, this::currentThreadOwner);
	}

	/**
	 * Returns the read-write lock of that name. The name is its Redis key (after the lock name
	 * prefix, if any).
	 * @param name the lock name; must not be blank
	 * @return a lightweight view of the lock
	 */
	@Override
	public DistributedReadWriteLock getReadWriteLock(String name) {
		return new RedisReadWriteLock(prefixed(name, "lock"), engine, leaseRenewal, this::currentThreadOwner);
	}

	/**
	 * Returns the semaphore of that name. The name is its Redis key (after the lock name prefix, if
	 * any).
	 * @param name the semaphore's name; must not be blank
	 * @return a lightweight view of the semaphore
	 */
	public DistributedSemaphore getSemaphore(String name) {
		return new RedisSemaphore(prefixed(name, "semaphore"), engine);
	}

	/**
	 * Returns the permit-expirable semaphore of that name: each permit has an id and a lease.
	 * @param name the semaphore's name; must not be blank
	 * @return a lightweight view of the semaphore
	 */
	public DistributedPermitExpirableSemaphore getPermitExpirableSemaphore(String name) {
		return new RedisPermitExpirableSemaphore(prefixed(name, "semaphore"), engine);
	}

	/**
	 * Returns the count-down latch of that name. The name is its Redis key (after the lock name
	 * prefix, if any).
	 * @param name the latch's name; must not be blank
	 * @return a lightweight view of the latch
	 */
	public DistributedCountDownLatch getCountDownLatch(String name) {
		return new RedisCountDownLatch(prefixed(name, "latch"), engine);
	}

	/**
	 * Returns the delayed queue of that name with payloads of any JSON shape (read back as maps,
	 * lists, strings, numbers and booleans).
	 * @param name the queue name; must not be blank nor contain braces
	 * @return a lightweight view of the queue
	 */
	public DelayedQueue<Object> getDelayedQueue(String name) {
		return getDelayedQueue(name, Object.class);
	}

	/**
	 * Returns the delayed queue of that name with payloads of one type, stored as JSON.
	 * @param name the queue name; must not be blank nor contain braces
	 * @param payloadType the payload type
	 * @param <T> the payload type
	 * @return a lightweight view of the queue
	 */
	public <T> DelayedQueue<T> getDelayedQueue(String name, Class<T> payloadType) {
		return getDelayedQueue(name, new JsonPayloadCodec<>(json, payloadType));
	}

	/**
	 * Returns the delayed queue of that name with payloads stored by {@code codec}.
	 * @param name the queue name; must not be blank nor contain braces
	 * @param codec turns payloads into stored text and back
	 * @param <T> the payload type
	 * @return a lightweight view of the queue
	 */
	@Override
	public <T> DelayedQueue<T> getDelayedQueue(String name, PayloadCodec<T> codec) {
		return new RedisDelayedQueue<>(name, engine, codec, json, consumers);
	}

	/**
	 * Makes writes that a {@link TaskWriteDeferral} held, now and in order, on whichever client
	 * makes them: the writes of one transaction once it committed. A schedule or reschedule that a
	 * later cancel of the same task follows is left out, so that the task cannot run in between.
	 * @param writes the writes
	 * @throws RedisUnavailableException when Redis cannot be reached: the writes before the failed
	 * one were made, and making them all again is safe (a schedule keeps a pending task of its id)
	 */
	public void applyTaskWrites(List<TaskWrite> writes) {
		for (int i = 0; i < writes.size(); i++) {
			TaskWrite write = writes.get(i);
			if (write.kind() == TaskWrite.Kind.CANCEL || !cancelledLater(writes, i)) {
				new RedisDelayedQueue<>(write.queue(), engine, STORED, json, consumers).apply(write);
			}
		}
	}

	private static boolean cancelledLater(List<TaskWrite> writes, int index) {
		TaskWrite write = writes.get(index);
		for (int i = index + 1; i < writes.size(); i++) {
			TaskWrite later = writes.get(i);
			if (later.kind() == TaskWrite.Kind.CANCEL && later.queue().equals(write.queue())
					&& later.taskId().equals(write.taskId())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Runs recurring jobs on this instance: each occurrence of a job runs once, on one of the
	 * instances that run the same jobs on the same queue, at a time decided by Redis's clock. The
	 * jobs are planned in Redis first (see {@link RecurringJobs}); the returned consumer runs the
	 * occurrences this instance claims, and closing it (or this client) stops that.
	 * @param queue the queue that holds the occurrences, one per application; not blank nor with braces
	 * @param jobs the jobs, with distinct names
	 * @param misfireThreshold how late an occurrence may start before its job's {@link Misfire}
	 * policy applies
	 * @return the running consumer
	 */
	@Override
	public TaskConsumer runRecurring(String queue, List<RecurringJob> jobs, Duration misfireThreshold) {
		DelayedQueue<RecurringJobs.Occurrence> occurrences = getDelayedQueue(queue, RecurringJobs.Occurrence.class);
		return new RecurringJobs(occurrences, engine, jobs, misfireThreshold).start();
	}

	/**
	 * The names of the delayed queues that have keys in Redis, whichever clients schedule to or
	 * consume them: found with {@code SCAN} over Warden's key pattern (on every master of a
	 * cluster), so the cost grows with the size of the keyspace; for operators' views, not for hot
	 * paths.
	 * @param max how many names to return at most
	 * @return the names, sorted
	 */
	public java.util.SortedSet<String> queueNames(int max) {
		return QueueCatalog.queueNames(engine, max);
	}

	/**
	 * The counts of several delayed queues, read with one script call each, sent together.
	 * @param names the queues' names
	 * @return their counts, in the order of {@code names}
	 */
	public List<QueueStats> queueStats(java.util.Collection<String> names) {
		return QueueCatalog.stats(engine, names);
	}

	/**
	 * The Warden clients that use this Redis now, this one included, read from Redis: each announces
	 * its version and the stored formats it reads and writes when it starts and every
	 * {@linkplain Builder#fleetAnnounceInterval(Duration) announce interval}, and counts as live
	 * until three intervals pass without an announcement, by Redis's clock, or until it is closed.
	 * During a rolling deploy this lists the old and the new version side by side. Clients of
	 * versions before this list existed do not appear in it.
	 * @return the live clients, in the order of their expiry
	 * @throws RedisUnavailableException when Redis cannot be reached
	 */
	public List<FleetMember> fleet() {
		return fleet.members();
	}

	/**
	 * The stored format this client writes of each family of keys ({@code tasks}: queues, their meta
	 * fields, channels and recurring plans; {@code limiters}: rate-limiter state): the newest that
	 * it writes and that every live client of {@link #fleet()} reads, as of its last announcement.
	 * @return the format per family
	 */
	public Map<String, Integer> writeFormats() {
		Map<String, Integer> formats = new LinkedHashMap<>();
		fleet.writeFormats().forEach((family, format) -> formats.put(family.key(), format));
		return java.util.Collections.unmodifiableMap(formats);
	}

	/**
	 * Checks that Redis answers on every connection of this client: the command connections, and
	 * the pub/sub connection that wakes lock waiters and task consumers.
	 * @return how long the slower answer took, in microseconds
	 * @throws RedisUnavailableException naming the connection that did not answer within the
	 * command timeout
	 */
	public long ping() {
		return engine.ping();
	}

	/**
	 * Like {@link #ping()}, without blocking and with a wait of its own.
	 * @param timeout how long to wait for both answers
	 * @return completes with how long the slower answer took, in microseconds, or fails with
	 * {@link RedisUnavailableException} naming the connection that did not answer in time
	 */
	public CompletableFuture<Long> pingAsync(Duration timeout) {
		return engine.pingAsync(timeout);
	}

	/**
	 * Reads Redis's memory figures ({@code INFO memory}) without blocking.
	 * @param timeout how long to wait for the answer
	 * @return completes with {@code used_memory}, {@code maxmemory} (0 without a limit) and
	 * {@code maxmemory_policy}, or fails with {@link RedisUnavailableException} after {@code timeout}
	 */
	public CompletableFuture<RedisMemory> memoryAsync(Duration timeout) {
		CompletableFuture<String> info = engine.infoAsync("memory");
		return info.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).handle((text, failure) -> {
			if (failure != null) {
				info.cancel(false);
				throw RedisEngine.translate(failure, "INFO memory");
			}
			return RedisMemory.parse(text);
		});
	}

	/**
	 * Whether every connection of this client is open now, as its Lettuce connections know
	 * without asking Redis: false while any reconnects after losing Redis.
	 * @return whether every connection is open
	 */
	public boolean isConnected() {
		return engine.connected();
	}

	/**
	 * A rate limiter shared by every client of this Redis that uses the same name.
	 * @param name the limiter's name, without braces: its key is {@code warden:rate:{<name>}}
	 * @param limit the rate this handle asks for; a limiter used with another rate keeps the permits
	 * in use, re-expressed at the new rate
	 * @return the limiter
	 */
	public DistributedRateLimiter getRateLimiter(String name, RateLimit limit) {
		return new RedisRateLimiter(name, limit, engine);
	}

	/**
	 * How many rate limiters whose name starts with {@code prefix} are in use now (their keys expire
	 * once full), counted with {@code SCAN}: for operators' views, not for hot paths.
	 * @param prefix the start of the names, such as {@code "exports:"} for every key of one
	 * {@code @RateLimited} name
	 * @param max the most to count
	 * @return the count, at most {@code max}
	 */
	public long rateLimitersInUse(String prefix, int max) {
		return RedisRateLimiter.countInUse(engine, prefix, max);
	}

	/**
	 * The test clock of a client built with {@link Builder#testClock(boolean)}.
	 * @return the clock, to move it forward; empty for a client built without one (warden-test's
	 * {@code @WardenTest} builds the application's client with one)
	 */
	public java.util.Optional<TestClock> testClock() {
		return engine.clockShifted() ? java.util.Optional.of(new TestClock(engine)) : java.util.Optional.empty();
	}

	/** {@return the JSON library that stores task payloads} */
	public JsonBinding getJson() {
		return json;
	}

	/** {@return the queues this client consumes} */
	public java.util.Set<String> consumedQueues() {
		return consumers.queues();
	}

	/**
	 * The limits on how a queue's tasks start that this client consumes it with.
	 * @param queue the queue's name
	 * @return its limits ({@link dev.warden.task.TaskLimits#NONE} for none); empty when this client
	 * does not consume the queue
	 */
	public java.util.Optional<dev.warden.task.TaskLimits> queueLimits(String queue) {
		return consumers.limits(queue);
	}

	/**
	 * Reads the earliest pending tasks and the latest dead letters (100 of each) of a queue this
	 * client consumes with the classes of its consumer, as a consumer does when it starts, and logs
	 * at WARN the ones it cannot read: after a deploy that changed a task's argument types, the tasks
	 * that will go to the dead letters when due. Whole payloads are read one at a time, at most 16 MiB
	 * of them per check ({@link PayloadCheck#budgetReached()} says when it stopped there).
	 * @param queue the queue's name
	 * @return what it found, or empty when this client does not consume the queue
	 * @throws RedisUnavailableException when Redis cannot be reached
	 */
	public java.util.Optional<PayloadCheck> checkPayloads(String queue) {
		return consumers.checkPayloads(queue);
	}

	/**
	 * Stops consuming every queue: no new claims, then waits up to the shutdown grace period for
	 * the handlers under way. Handlers still running then stay in flight and are delivered again.
	 * @return whether every running handler finished in time
	 */
	@Override
	public boolean stopConsumers() {
		return consumers.stopAll();
	}

	/**
	 * A new owner that belongs to no thread, for a hold acquired on one thread and released on
	 * another. Each call returns a different owner.
	 * @return the owner
	 */
	@Override
	public LockOwner newOwner() {
		return new LockOwner(clientId + ":" + -detachedOwners.incrementAndGet());
	}

	/** The owner the thread-bound lock methods use for the calling thread. */
	@Override
	public LockOwner currentThreadOwner() {
		return threadOwners.get();
	}

	@SuppressWarnings("deprecation") // Thread.threadId() needs Java 19; the id is the same.
	private LockOwner newThreadOwner() {
		return new LockOwner(clientId + ":" + Thread.currentThread().getId());
	}

	/** {@return the listener told about lost leases} */
	public LockListener getLockListener() {
		return lockListener;
	}

	/** {@return how many lock holds this client's watchdog is renewing} */
	public int activeLeaseRenewals() {
		return leaseRenewal.activeRenewals();
	}

	/** {@return how many pub/sub channels this client is subscribed to for its waiters} */
	public int subscribedChannels() {
		return engine.subscriptions().subscribedChannels();
	}

	/**
	 * Stops consuming queues (waiting up to the shutdown grace period for running handlers, and
	 * handing back the tasks claimed ahead of their due time), releases the locks it holds under the
	 * watchdog, stops lease renewals and closes the connections this client opened. Locks it holds
	 * with a lease of their own expire when that runs out.
	 */
	@Override
	public void close() {
		if (!closed.compareAndSet(false, true)) {
			return;
		}
		consumers.close();
		// Locks still held under the watchdog go back at once, not when their leases run out.
		leaseRenewal.releaseAll();
		leaseRenewal.close();
		redLockNodes.forEach(Warden::close);
		// Last: until here it still ran handlers and held locks, as a live instance.
		fleet.close();
		engine.close();
	}

	private static String shortId(String clientId) {
		return clientId.substring(0, Math.min(8, clientId.length()));
	}

	/** Options of a {@link Warden} client. */
	public static final class Builder {

		private final AbstractRedisClient client;

		private String clientId = UUID.randomUUID().toString();

		private Duration watchdogTimeout = WardenDefaults.WATCHDOG_TIMEOUT;

		private Duration commandTimeout = WardenDefaults.COMMAND_TIMEOUT;

		private int connections = WardenDefaults.connections(Runtime.getRuntime().availableProcessors());

		private LockListener lockListener = LockListener.NONE;

		private TaskListener taskListener = TaskListener.NONE;

		private boolean testClock;

		private TaskWriteDeferral taskWriteDeferral = TaskWriteDeferral.NONE;

		private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

		private @Nullable JsonBinding json;

		private Duration fairLockWaiterTimeout = WardenDefaults.FAIR_LOCK_WAITER_TIMEOUT;

		private ReplicaSync replicaSync = ReplicaSync.auto(WardenDefaults.REPLICA_SYNC_TIMEOUT);

		private List<AbstractRedisClient> redLockClients = List.of();

		private Duration redLockNodeTimeout = WardenDefaults.REDLOCK_NODE_TIMEOUT;

		private int taskConcurrency = WardenDefaults.TASK_CONCURRENCY;

		private boolean taskVirtualThreads;

		private @Nullable Duration taskDeadLetterRetention;

		private Duration taskNewerFormatGrace = WardenDefaults.TASK_NEWER_FORMAT_GRACE;

		private ConsumerOptions taskDefaults = ConsumerOptions.DEFAULTS;

		private final Map<String, ConsumerOptions> taskQueueDefaults = new LinkedHashMap<>();

		private Duration taskSweepInterval = WardenDefaults.TASK_SWEEP_INTERVAL;

		private Duration taskClaimAhead = WardenDefaults.TASK_CLAIM_AHEAD;

		private Duration shutdownGrace = WardenDefaults.SHUTDOWN_GRACE;

		private int taskMaxPayloadBytes = WardenDefaults.TASK_MAX_PAYLOAD_BYTES;

		private ReplicaSync taskReplicaSync = ReplicaSync.auto(WardenDefaults.REPLICA_SYNC_TIMEOUT);

		private CheckMode evictionPolicyCheck = CheckMode.WARN;

		private KeyNamespace namespace = KeyNamespace.WARDEN;

		private String lockNamePrefix = "";

		private Duration fleetAnnounceInterval = WardenDefaults.FLEET_ANNOUNCE_INTERVAL;

		/** Whether the client announces itself to the other instances on its Redis. */
		private boolean fleetAnnounce = true;

		private Builder(AbstractRedisClient client) {
			if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
				throw new IllegalArgumentException("Expected a Lettuce RedisClient or RedisClusterClient, got " + client);
			}
			this.client = client;
		}

		/**
		 * The client's id, a fresh UUID by default. Two live clients must never share one.
		 * @param clientId the id; must not be blank nor contain ':'
		 * @return this builder
		 */
		public Builder clientId(String clientId) {
			if (clientId == null || clientId.isBlank() || clientId.contains(":")) {
				throw new IllegalArgumentException("The client id must not be blank nor contain ':': " + clientId);
			}
			this.clientId = clientId;
			return this;
		}

		/**
		 * The lease of locks acquired without one, renewed every third of it (30 seconds by
		 * default).
		 * @param watchdogTimeout the lease; at least 3 milliseconds
		 * @return this builder
		 */
		public Builder watchdogTimeout(Duration watchdogTimeout) {
			this.watchdogTimeout = WardenDefaults.requireWatchdogTimeout("The watchdog timeout", watchdogTimeout);
			return this;
		}

		/**
		 * How many command connections the client opens on a standalone Redis (Sentinel's included).
		 * Calls on one lock, semaphore, queue or limiter always share one connection, so they keep the
		 * order they were sent in; different names spread over the connections, and the connections
		 * over the I/O threads of the Lettuce client's resources. One connection carries some 60 to 70
		 * thousand calls a second on one I/O thread; more are for hosts with many cores. On a Redis
		 * Cluster the client has one cluster connection, which holds one connection per master, and
		 * this is ignored. By default one per available processor, at least 1 and at most 4.
		 * @param connections from 1 to 16
		 * @return this builder
		 */
		public Builder connections(int connections) {
			this.connections = WardenDefaults.requireConnections("The number of connections", connections);
			return this;
		}

		/**
		 * How long a blocking call waits for Redis before throwing
		 * {@link RedisUnavailableException} (10 seconds by default).
		 * @param commandTimeout the timeout; positive
		 * @return this builder
		 */
		public Builder commandTimeout(Duration commandTimeout) {
			this.commandTimeout = WardenDefaults.requirePositive("The command timeout", commandTimeout);
			return this;
		}

		/**
		 * Told about lost leases, for logging and metrics.
		 * @param lockListener the listener
		 * @return this builder
		 */
		public Builder lockListener(LockListener lockListener) {
			if (lockListener == null) {
				throw new IllegalArgumentException("The lock listener must not be null");
			}
			this.lockListener = lockListener;
			return this;
		}

		/**
		 * Told what this client schedules and how the deliveries it runs end, for metrics.
		 * @param taskListener the listener
		 * @return this builder
		 */
		public Builder taskListener(TaskListener taskListener) {
			if (taskListener == null) {
				throw new IllegalArgumentException("The task listener must not be null");
			}
			this.taskListener = taskListener;
			return this;
		}

		/**
		 * Defers the schedules, cancels and reschedules that {@code deferral} says to (by default
		 * none): how writes made inside a transaction wait for its commit. The deferred writes reach
		 * Redis through {@link Warden#applyTaskWrites}.
		 * @param deferral the deferral
		 * @return this builder
		 */
		public Builder taskWriteDeferral(TaskWriteDeferral deferral) {
			if (deferral == null) {
				throw new IllegalArgumentException("The task write deferral must not be null");
			}
			this.taskWriteDeferral = deferral;
			return this;
		}

		/**
		 * Makes task schedules ({@code warden.task.schedule}) and deliveries
		 * ({@code warden.task.run}) observations of {@code registry}: the trace context of the code
		 * that schedules a task is stored with it, and the delivery, on whichever instance runs it,
		 * continues that trace.
		 * @param observationRegistry the registry
		 * @return this builder
		 */
		public Builder observationRegistry(ObservationRegistry observationRegistry) {
			if (observationRegistry == null) {
				throw new IllegalArgumentException("The observation registry must not be null");
			}
			this.observationRegistry = observationRegistry;
			return this;
		}

		/**
		 * The independent Redis nodes of {@link Warden#getRedLock(String)}: the client opens its own
		 * connections on each (the clients stay the caller's to shut down).
		 * @param nodes the nodes' clients; at least 3 for RedLocks to be usable
		 * @param nodeTimeout how long an attempt waits for one node before counting it as refused
		 * @return this builder
		 */
		public Builder redLockNodes(List<? extends AbstractRedisClient> nodes, Duration nodeTimeout) {
			if (nodes == null || nodes.stream().anyMatch(java.util.Objects::isNull)) {
				throw new IllegalArgumentException("The RedLock nodes must not be null");
			}
			this.redLockNodeTimeout = WardenDefaults.requirePositive("The RedLock node timeout", nodeTimeout);
			this.redLockClients = List.copyOf(nodes);
			return this;
		}

		/**
		 * The fail-over check: after each acquisition, wait until {@code replicas} replicas have
		 * it (Redis {@code WAIT}), within {@code timeout}; if they do not, the hold is given back
		 * and the attempt counts as failed. By default {@link ReplicaSync#AUTO} within 1 s: one
		 * replica when the master has any (read at connect, after each reconnect and every 5 s) or
		 * had some and lost them (a master deposed by a fail-over), none when it never had one.
		 * While it waits for a replica, a release does not hand the lock straight
		 * to a waiter of the same client. On a Redis Cluster, per master: the
		 * {@code WAIT} goes to the master of the lock's slot.
		 * @param replicas how many replicas must acknowledge: {@link ReplicaSync#AUTO}, or a number;
		 * 0 turns it off
		 * @param timeout how long to wait for them
		 * @return this builder
		 */
		public Builder replicaSync(int replicas, Duration timeout) {
			this.replicaSync = new ReplicaSync(replicas, timeout);
			return this;
		}

		/**
		 * How long a fair lock's waiter keeps its place once its turn could have come (5 minutes
		 * by default): a waiter that crashed stops blocking those behind it after this.
		 * @param fairLockWaiterTimeout positive
		 * @return this builder
		 */
		public Builder fairLockWaiterTimeout(Duration fairLockWaiterTimeout) {
			this.fairLockWaiterTimeout = WardenDefaults.requirePositive("The fair lock waiter timeout",
					fairLockWaiterTimeout);
			return this;
		}

		/**
		 * The JSON library that stores task payloads: for instance {@code new
		 * Jackson3Binding(jsonMapper)} or {@code new Jackson2Binding(objectMapper)}. By default
		 * {@link JsonBindings#detect()}: Jackson 3, else Jackson 2, with every module on the
		 * classpath.
		 * @param json the binding
		 * @return this builder
		 */
		public Builder json(JsonBinding json) {
			if (json == null) {
				throw new IllegalArgumentException("The JSON binding must not be null");
			}
			this.json = json;
			return this;
		}

		/**
		 * How many task handlers run at once on this client, across all its queues (8 by default).
		 * Unless they run on virtual threads, they run on a work-stealing pool of as many daemon
		 * threads, named {@code warden-task-…}; a parallel stream in a handler runs on them too.
		 * @param taskConcurrency at least 1
		 * @return this builder
		 */
		public Builder taskConcurrency(int taskConcurrency) {
			this.taskConcurrency = WardenDefaults.requireAtLeastOne("The task concurrency", taskConcurrency);
			return this;
		}

		/**
		 * How long dead letters are kept after they failed: older ones are removed when another task
		 * of their queue becomes a dead letter, or by {@link DelayedQueue#purgeDeadLetters}. By default
		 * they are kept until requeued or deleted.
		 * @param retention how long; positive, at most 100 years; {@code null} to keep them
		 * @return this builder
		 */
		public Builder taskDeadLetterRetention(@Nullable Duration retention) {
			if (retention != null && (retention.isNegative() || retention.isZero() || retention.toDays() > 36_500)) {
				throw new IllegalArgumentException("The dead-letter retention must be positive and at most 100 years: "
						+ retention);
			}
			this.taskDeadLetterRetention = retention;
			return this;
		}

		/**
		 * How long a task written by a later version than this instance reads (a later
		 * {@code @DelayedTask} version, a newer stored format) may wait in its queue for an instance
		 * that reads it, left there by instances that cannot (without spending its attempts), before
		 * it becomes a dead letter with the reason (1 hour by default). During a rolling deploy, the
		 * newer instances take such tasks long before.
		 * @param grace how long; positive
		 * @return this builder
		 * @see dev.warden.task.NewerTaskFormatException
		 */
		public Builder taskNewerFormatGrace(Duration grace) {
			this.taskNewerFormatGrace = WardenDefaults.requirePositive("the newer-format grace", grace);
			return this;
		}

		/**
		 * Whether task handlers run on virtual threads, one per task, instead of a pool of platform
		 * threads (off by default). The task concurrency still bounds how many run at once. Needs
		 * Java 21 or later.
		 * @param taskVirtualThreads whether handlers run on virtual threads
		 * @return this builder
		 * @throws IllegalArgumentException when turned on under a Java older than 21
		 */
		public Builder taskVirtualThreads(boolean taskVirtualThreads) {
			if (taskVirtualThreads && Runtime.version().feature() < 21) {
				throw new IllegalArgumentException("Task handlers on virtual threads need Java 21 or later; this is Java "
						+ Runtime.version().feature());
			}
			this.taskVirtualThreads = taskVirtualThreads;
			return this;
		}

		/**
		 * Options of consumers started without their own (5 attempts, 10 s backoff doubling up to
		 * 10 min, 5 min visibility timeout by default).
		 * @param taskDefaults the options
		 * @return this builder
		 */
		public Builder taskDefaults(ConsumerOptions taskDefaults) {
			if (taskDefaults == null) {
				throw new IllegalArgumentException("The consumer options must not be null");
			}
			this.taskDefaults = taskDefaults;
			return this;
		}

		/**
		 * Options of one queue's consumers started without their own, instead of
		 * {@link #taskDefaults(ConsumerOptions)}.
		 * @param queue the queue
		 * @param options its options
		 * @return this builder
		 */
		public Builder taskQueueDefaults(String queue, ConsumerOptions options) {
			if (queue == null || queue.isBlank() || options == null) {
				throw new IllegalArgumentException("The queue must not be blank and the options not null: " + queue);
			}
			this.taskQueueDefaults.put(queue, options);
			return this;
		}

		/**
		 * The longest a consumer sleeps without looking at its queue, a safety net for a missed
		 * wake-up message (30 s by default).
		 * @param taskSweepInterval positive
		 * @return this builder
		 */
		public Builder taskSweepInterval(Duration taskSweepInterval) {
			this.taskSweepInterval = WardenDefaults.requirePositive("The sweep interval", taskSweepInterval);
			return this;
		}

		/**
		 * How long before its due time a consumer may claim a task, together with the tasks it claims
		 * anyway (5 ms by default). On a busy queue a consumer then claims once per window instead of
		 * once per due millisecond, which saves Redis most of its work per task; it still starts each
		 * task when it is due, by Redis's clock, holding a handler slot for it meanwhile. A task
		 * claimed ahead that is cancelled, rescheduled or replaced before it starts is revoked on the
		 * queue's channel. Zero claims only tasks already due.
		 * @param taskClaimAhead not negative, at most 1 s
		 * @return this builder
		 */
		public Builder taskClaimAhead(Duration taskClaimAhead) {
			this.taskClaimAhead = WardenDefaults.requireClaimAhead("The claim-ahead window", taskClaimAhead);
			return this;
		}

		/**
		 * The largest payload a task may be scheduled with, as stored (JSON, in UTF-8 bytes; 1 MiB
		 * by default). A larger one is refused with {@link IllegalArgumentException} before anything
		 * is written: a task is a reminder, its data belongs elsewhere.
		 * @param maxPayloadBytes from 1 to 512 MiB
		 * @return this builder
		 */
		public Builder taskMaxPayloadBytes(long maxPayloadBytes) {
			this.taskMaxPayloadBytes = WardenDefaults.requirePayloadLimit("The largest task payload", maxPayloadBytes);
			return this;
		}

		/**
		 * The durability check after each schedule: a schedule is acknowledged only once
		 * {@code replicas} replicas have it ({@code WAIT}), so that an acknowledged schedule
		 * survives a fail-over; when they do not within {@code timeout}, it fails with
		 * {@link ReplicaSyncException} (the task may still be there; scheduling it again with the
		 * same id is safe). By default {@link ReplicaSync#AUTO} within 1 s: one replica when the
		 * master has any or had some and lost them (a master deposed by a fail-over, whose schedules
		 * then fail until Warden has moved to the new master), none when it never had one.
		 * On a Redis Cluster, per master: the {@code WAIT} goes to the master of the queue's slot.
		 * @param replicas how many replicas must acknowledge: {@link ReplicaSync#AUTO}, or a number;
		 * 0 turns the check off
		 * @param timeout how long to wait for them
		 * @return this builder
		 */
		public Builder taskReplicaSync(int replicas, Duration timeout) {
			this.taskReplicaSync = new ReplicaSync(replicas, timeout);
			return this;
		}

		/**
		 * How long closing the client waits for running task handlers (30 s by default).
		 * @param shutdownGrace not negative
		 * @return this builder
		 */
		public Builder shutdownGrace(Duration shutdownGrace) {
			this.shutdownGrace = WardenDefaults.requireNotNegative("The shutdown grace period", shutdownGrace);
			return this;
		}

		/**
		 * What to do when Redis's {@code maxmemory-policy} lets it evict keys, which can take a held
		 * lock (a second holder gets in) or a pending task (it never runs): {@code WARN} (the default)
		 * logs it when the client connects and after each reconnect, {@code FAIL} refuses to build the
		 * client, {@code IGNORE} does not look.
		 * @param mode what to do
		 * @return this builder
		 */
		public Builder evictionPolicyCheck(CheckMode mode) {
			this.evictionPolicyCheck = Objects.requireNonNull(mode, "mode");
			return this;
		}

		/**
		 * The namespace of every key and channel the client names itself, {@value KeyNamespace#DEFAULT}
		 * by default: queues, their channels and recurring plans ({@code <namespace>:task:…}), rate
		 * limiters ({@code <namespace>:rate:…}), the locks' fencing counters
		 * ({@code <namespace>_fencing:…}) and the test clock ({@code <namespace>:test:clock-offset}).
		 * Applications that share one Redis can take different namespaces and be kept apart by Redis
		 * ACLs; each lists and counts only the queues of its own. Lock names are not in it: see
		 * {@link #lockNamePrefix(String)}.
		 * @param namespace the namespace: not empty, at most {@value KeyNamespace#MAX_LENGTH}
		 * characters, without braces, {@code * ? [ ] \}, whitespace or control characters
		 * @return this builder
		 * @throws IllegalArgumentException when the namespace is not valid
		 */
		public Builder namespace(String namespace) {
			this.namespace = KeyNamespace.of(namespace);
			return this;
		}

		/**
		 * A prefix put in front of every name given to the client for a lock, semaphore or latch
		 * ({@link Warden#getLock(String)}, {@link Warden#getSemaphore(String)} and the others): the
		 * name {@code N} is then the key {@code prefix + N}, and the keys and channels derived from it
		 * follow (see {@link LockFactory}). Empty by default: names are the keys as given,
		 * as Redisson names them. {@code @DistributedLock} locks use {@link Warden#unprefixedLocks()},
		 * with their own key prefix.
		 * @param lockNamePrefix the prefix; empty for none
		 * @return this builder
		 */
		public Builder lockNamePrefix(String lockNamePrefix) {
			this.lockNamePrefix = Objects.requireNonNull(lockNamePrefix, "lockNamePrefix");
			return this;
		}

		/**
		 * How often the client announces its version and the stored formats it reads and writes to
		 * the other instances on its Redis ({@link Warden#fleet()}; 10 s by default). It announces
		 * itself once before {@link #build()} returns, and counts as live for three intervals after
		 * each announcement, by Redis's clock: a client that stops without being closed leaves the
		 * list after three intervals. A shorter interval notices a stopped client sooner, at one
		 * script call per interval.
		 * @param interval from 1 ms to 1 hour
		 * @return this builder
		 */
		public Builder fleetAnnounceInterval(Duration interval) {
			this.fleetAnnounceInterval = WardenDefaults.requireAnnounceInterval("The fleet announce interval", interval);
			return this;
		}

		/**
		 * For tests: lets a test move this client's clock forward ({@link Warden#testClock()}), so that
		 * a task due in 30 minutes, or tomorrow's occurrence of a recurring task, runs now. Every
		 * script that reads Redis's clock then reads one key more; standalone Redis (or Sentinel)
		 * only. Never for production. Off by default.
		 * @param enabled whether the client has a test clock
		 * @return this builder
		 */
		public Builder testClock(boolean enabled) {
			this.testClock = enabled;
			return this;
		}

		/**
		 * Connects and returns the client.
		 * @return the client
		 * @throws RedisUnavailableException when Redis cannot be reached
		 * @throws WardenConfigurationException when Redis evicts keys and the eviction policy check
		 * is {@code FAIL}
		 */
		public Warden build() {
			String threadName = "warden-" + shortId(clientId);
			RedisEngine engine = RedisEngine.connect(client, threadName, commandTimeout, namespace, connections);
			Warden warden;
			try {
				if (testClock) {
					engine.shiftClock();
				}
				warden = new Warden(this, engine);
			}
			catch (RuntimeException ex) {
				engine.close();
				throw ex;
			}
			try {
				EvictionPolicyCheck eviction = new EvictionPolicyCheck(engine, evictionPolicyCheck);
				eviction.checkNow();
				// A reconnect may land on another master (a fail-over), configured otherwise.
				engine.onReconnect(eviction::checkLater);
				if (replicaSync.isAuto() || taskReplicaSync.isAuto()) {
					warden.replicaCount.start();
				}
			}
			catch (RuntimeException ex) {
				warden.close();
				throw ex;
			}
			if (fleetAnnounce) {
				// Before the client is returned: it knows the fleet before it writes anything.
				warden.fleet.start();
			}
			return warden;
		}

	}

}
