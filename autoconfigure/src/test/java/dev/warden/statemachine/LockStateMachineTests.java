package dev.warden.statemachine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Random interleavings of what owners do with locks — acquire with and without a wait, give up
 * (a cancelled {@code tryLockAsync}, an interrupted {@code tryLock}), time out, release (which hands
 * the lock to a sleeping waiter of the same client, the releasing owner's own included), hold under
 * a short watchdog or with a fixed lease that runs out — on two clients, each with an owner bound
 * to a thread of its own and a detached owner that uses the asynchronous API, over a reentrant
 * lock, a fair lock, both sides of a read-write lock and a semaphore. After every step the holds
 * the owners were told of are checked against Redis and against the promises of the documentation:
 * <ul>
 * <li>at most one owner holds a lock, and a write lock excludes other owners' reads;</li>
 * <li>an owner's hold count in Redis is what its calls add up to;</li>
 * <li>every hold under the watchdog stays in Redis, or is reported lost to the lock listener;</li>
 * <li>an acquisition that gave up or timed out leaves nothing held: a lock nobody was told they
 * hold is acquired at once by another owner, and the semaphore's permits add up.</li>
 * </ul>
 * Nothing that depends on the machine's speed is judged until it is certain: a fixed lease is
 * judged from Redis {@code TIME} read around the calls, a cancelled acquisition's give-back gets
 * {@link #SETTLE_NANOS} to land, and a hold missing from Redis is a broken promise only when no loss was
 * reported within {@link #CONFIRM} (a loaded machine may legitimately miss a renewal).
 */
class LockStateMachineTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** The watchdog's lease: renewed every third of it. */
	private static final Duration WATCHDOG = Duration.ofMillis(1_000);

	/** The fixed lease of the thread-bound owners' holds of the fair lock. */
	private static final long FAIR_LEASE_MILLIS = 700;

	private static final int PERMITS = 3;

	/** How long a cancelled acquisition may take to give back what it won. */
	private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** How long a lost watchdog hold may take to be reported: a whole lease of failed renewals and more. */
	private static final Duration CONFIRM = Duration.ofSeconds(8);

	/** How far Redis's clock and the calls around it may be judged off, µs. */
	private static final long SLACK_MICROS = 50_000;

	/** Four owners: even ones are bound to a thread of their own, odd ones are detached; client = actor / 2. */
	private static final int ACTORS = 4;

	enum Resource {

		LOCK("m0"), FAIR("m1"), READ("rw"), WRITE("rw");

		final String key;

		Resource(String key) {
			this.key = key;
		}

		DistributedReentrantLock on(Warden warden) {
			return switch (this) {
				case LOCK -> warden.getLock(key);
				case FAIR -> warden.getFairLock(key);
				case READ -> warden.getReadWriteLock(key).readLock();
				case WRITE -> warden.getReadWriteLock(key).writeLock();
			};
		}

	}

	sealed interface Operation permits Acquire, GiveUp, Release, TakePermits, GiveUpPermits, ReturnPermits, Pause {
	}

	/**
	 * An acquisition: {@code tryLock(wait)} on the thread of a thread-bound owner (with a fixed lease
	 * on the fair lock), {@code tryLockAsync(owner, wait)} for a detached one, which may make two at
	 * once (as two children of one locked Kotlin call sharing its owner do).
	 */
	record Acquire(int actor, Resource resource, long waitMillis, int times) implements Operation {
	}

	/** Cancels the oldest pending {@code tryLockAsync} of a detached owner, or interrupts a thread-bound owner's wait. */
	record GiveUp(int actor) implements Operation {
	}

	/** Releases one hold of the resource of that ordinal, else of the n-th (modulo how many) the owner holds. */
	record Release(int actor, int nth) implements Operation {
	}

	record TakePermits(int client, int permits, long waitMillis) implements Operation {
	}

	record GiveUpPermits() implements Operation {
	}

	record ReturnPermits(int permits) implements Operation {
	}

	record Pause(long millis) implements Operation {
	}

	/**
	 * Operations with locality, so that contention builds up: most use the lock in focus, which
	 * changes now and then, and the owners of one client, which hand locks to each other.
	 */
	static List<Operation> generate(Random random, int steps) {
		List<Operation> operations = new ArrayList<>(steps);
		long[] waits = { 0, 0, 150, 500, 1_500 };
		// The kinds that hand over (reentrant, fair) are in focus more often than the read-write sides.
		Resource[] focused = { Resource.LOCK, Resource.LOCK, Resource.FAIR, Resource.READ, Resource.WRITE };
		Resource focus = focused[random.nextInt(focused.length)];
		int client = random.nextInt(2);
		for (int i = 0; i < steps; i++) {
			if (random.nextInt(8) == 0) {
				focus = focused[random.nextInt(focused.length)];
			}
			if (random.nextInt(10) == 0) {
				client = random.nextInt(2);
			}
			int actor = (random.nextInt(5) == 0) ? random.nextInt(ACTORS) : client * 2 + random.nextInt(2);
			switch (random.nextInt(20)) {
				case 0, 1, 2, 3, 4, 5 -> operations.add(new Acquire(actor, focus, waits[random.nextInt(waits.length)], 1));
				case 6 -> operations.add(new Acquire(actor | 1, focus, 1_500, 2));
				case 7, 8 -> operations.add(new GiveUp(actor));
				case 9, 10, 11, 12, 13 -> operations.add(new Release(actor, focus.ordinal()));
				case 14 -> operations.add(new TakePermits(random.nextInt(2), 1 + random.nextInt(2),
						waits[random.nextInt(waits.length)]));
				case 15 -> operations.add(random.nextBoolean() ? new GiveUpPermits() : new ReturnPermits(1 + random.nextInt(2)));
				// Now and then past a lease: the watchdog must have renewed every hold under it.
				default -> operations.add(new Pause((random.nextInt(2) == 0) ? 1_100 + random.nextInt(400) : 10 + random.nextInt(250)));
			}
		}
		return operations;
	}

	@Test
	void randomAcquisitionsCancellationsAndReleasesKeepEveryPromise() throws Exception {
		RedisClient[] lettuce = { clients.redisClient(redis.node()), clients.redisClient(redis.node()) };
		new StateMachine<>("locks", LockStateMachineTests::generate, operations -> run(lettuce, operations), 90_000)
			.check(StateMachine.baseSeed(0x10c5L), StateMachine.sequences(4), StateMachine.steps(40));
	}

	/**
	 * A sequence the random ones reach only now and then, kept as it is: an owner's two waits, the
	 * lock handed by another owner of the client to one of them and then by the owner to its own
	 * other wait, and a pause past the lease, through which the watchdog must renew the owner's hold.
	 */
	@Test
	void anOwnerHandingTheLockToItselfKeepsItRenewed() throws Exception {
		RedisClient[] lettuce = { clients.redisClient(redis.node()), clients.redisClient(redis.node()) };
		run(lettuce, List.of(new Acquire(0, Resource.LOCK, 0, 1), new Acquire(1, Resource.LOCK, 1_500, 2), new Pause(100),
				new Release(0, Resource.LOCK.ordinal()), new Release(1, Resource.LOCK.ordinal()), new Pause(1_500),
				new Pause(10)));
	}

	void run(RedisClient[] lettuce, List<Operation> operations) throws Exception {
		redis.node().call("FLUSHALL");
		Queue<Report> lost = new ConcurrentLinkedQueue<>();
		LockListener listener = new LockListener() {
			@Override
			public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
				lost.add(new Report(lockName + "|" + owner.id(), System.nanoTime()));
			}
		};
		Warden[] wardens = new Warden[2];
		for (int i = 0; i < 2; i++) {
			wardens[i] = clients.open(lettuce[i], builder -> builder.watchdogTimeout(WATCHDOG).lockListener(listener));
		}
		World world = new World(wardens, lost);
		try {
			int step = 0;
			for (Operation operation : operations) {
				step++;
				String at = "step " + step + " (" + operation + ")";
				world.apply(operation, at);
				world.check(at);
			}
			world.drain("the end");
		}
		finally {
			world.close();
			for (Warden warden : wardens) {
				warden.close();
			}
		}
	}

	/** A loss the lock listener was told of: lock name and owner id, and when. */
	record Report(String lockAndOwner, long nanos) {
	}

	/**
	 * A hold an owner was told it has: under the watchdog, or with a fixed lease ending within
	 * [low, high] (Redis µs); {@code since} is when its acquisition was asked for: a loss reported
	 * before that is of an earlier hold.
	 */
	static final class Hold {

		final boolean fixed;

		final long low;

		final long high;

		final long since;

		Hold(boolean fixed, long low, long high, long since) {
			this.fixed = fixed;
			this.low = low;
			this.high = high;
			this.since = since;
		}

	}

	/** An acquisition under way. */
	static final class Pending {

		final int actor;

		final @Nullable Resource resource;

		final int permits;

		final CompletableFuture<Boolean> future;

		final long redisBefore;

		final long since = System.nanoTime();

		Pending(int actor, @Nullable Resource resource, int permits, CompletableFuture<Boolean> future, long redisBefore) {
			this.actor = actor;
			this.resource = resource;
			this.permits = permits;
			this.future = future;
			this.redisBefore = redisBefore;
		}

	}

	/** An owner bound to a thread of its own, which runs its blocking calls; the test may interrupt its wait. */
	static final class ThreadActor {

		final ExecutorService thread = Executors.newSingleThreadExecutor();

		final Object monitor = new Object();

		final Thread runner;

		final LockOwner owner;

		boolean busy;

		ThreadActor(Warden warden) throws Exception {
			this.runner = thread.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
			this.owner = thread.submit(warden::currentThreadOwner).get(10, TimeUnit.SECONDS);
		}

		boolean busy() {
			synchronized (this.monitor) {
				return this.busy;
			}
		}

		CompletableFuture<Boolean> tryLock(DistributedReentrantLock lock, long waitMillis, long leaseMillis) {
			CompletableFuture<Boolean> outcome = new CompletableFuture<>();
			synchronized (this.monitor) {
				this.busy = true;
			}
			this.thread.execute(() -> {
				Boolean acquired = null;
				Throwable failure = null;
				try {
					acquired = (leaseMillis > 0) ? lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS)
							: lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
				}
				catch (Throwable ex) {
					failure = ex;
				}
				synchronized (this.monitor) {
					this.busy = false;
					// An interrupt that came after the call returned is not for the next one.
					Thread.interrupted();
				}
				if (failure != null) {
					outcome.completeExceptionally(failure);
				}
				else {
					outcome.complete(acquired);
				}
			});
			return outcome;
		}

		void interrupt() {
			synchronized (this.monitor) {
				if (this.busy) {
					this.runner.interrupt();
				}
			}
		}

		void unlock(DistributedReentrantLock lock) throws Exception {
			try {
				this.thread.submit(() -> {
					lock.unlock();
					return null;
				}).get(10, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof Exception cause) {
					throw cause;
				}
				throw ex;
			}
		}

	}

	/** The model: what each owner was told it holds, what is under way, and the checks. */
	final class World {

		final Warden[] wardens;

		final Queue<Report> lost;

		final LockOwner[] owners = new LockOwner[ACTORS];

		final ThreadActor[] threads = new ThreadActor[ACTORS];

		/** Per actor and resource, the holds it was told of. */
		final Map<Integer, Map<Resource, List<Hold>>> holds = new HashMap<>();

		final List<Pending> pending = new ArrayList<>();

		/** Per actor and resource (null: the semaphore), when its acquisitions last gave up: a late win may still be given back. */
		final Map<String, Long> settling = new HashMap<>();

		final DistributedSemaphore[] semaphores = new DistributedSemaphore[2];

		int permitsHeld;

		World(Warden[] wardens, Queue<Report> lost) throws Exception {
			this.wardens = wardens;
			this.lost = lost;
			for (int actor = 0; actor < ACTORS; actor++) {
				Warden warden = wardens[actor / 2];
				if (actor % 2 == 0) {
					this.threads[actor] = new ThreadActor(warden);
					this.owners[actor] = this.threads[actor].owner;
				}
				else {
					this.owners[actor] = warden.newOwner();
				}
				this.holds.put(actor, new HashMap<>());
			}
			for (int i = 0; i < 2; i++) {
				this.semaphores[i] = wardens[i].getSemaphore("sem");
			}
			this.semaphores[0].trySetPermits(PERMITS);
		}

		void close() {
			for (ThreadActor thread : this.threads) {
				if (thread != null) {
					thread.thread.shutdownNow();
				}
			}
		}

		List<Hold> holds(int actor, Resource resource) {
			return this.holds.get(actor).computeIfAbsent(resource, key -> new ArrayList<>());
		}

		DistributedReentrantLock lock(int actor, Resource resource) {
			return resource.on(this.wardens[actor / 2]);
		}

		void apply(Operation operation, String at) throws Exception {
			if (operation instanceof Acquire acquire) {
				int actor = acquire.actor();
				Resource resource = acquire.resource();
				long before = redisMicros();
				CompletableFuture<Boolean> future;
				if (actor % 2 == 0) {
					ThreadActor thread = this.threads[actor];
					boolean fixed = resource == Resource.FAIR;
					if (thread.busy() || (fixed && !holds(actor, resource).isEmpty())) {
						return;
					}
					future = thread.tryLock(lock(actor, resource), acquire.waitMillis(), fixed ? FAIR_LEASE_MILLIS : 0);
				}
				else {
					for (int i = 1; i < acquire.times(); i++) {
						this.pending.add(new Pending(actor, resource, 0,
								lock(actor, resource).tryLockAsync(this.owners[actor], acquire.waitMillis(), TimeUnit.MILLISECONDS),
								before));
					}
					future = lock(actor, resource).tryLockAsync(this.owners[actor], acquire.waitMillis(), TimeUnit.MILLISECONDS);
				}
				this.pending.add(new Pending(actor, resource, 0, future, before));
			}
			else if (operation instanceof GiveUp giveUp) {
				int actor = giveUp.actor();
				if (actor % 2 == 0) {
					this.threads[actor].interrupt();
					return;
				}
				for (Iterator<Pending> it = this.pending.iterator(); it.hasNext();) {
					Pending oldest = it.next();
					if (oldest.actor == actor && oldest.resource != null) {
						if (oldest.future.cancel(false)) {
							it.remove();
							this.settling.put(actor + "|" + oldest.resource, System.nanoTime());
						}
						return;
					}
				}
			}
			else if (operation instanceof Release release) {
				release(release.actor(), release.nth(), at);
			}
			else if (operation instanceof TakePermits take) {
				long before = redisMicros();
				this.pending.add(new Pending(-1, null, take.permits(),
						this.semaphores[take.client()].tryAcquireAsync(take.permits(), take.waitMillis(), TimeUnit.MILLISECONDS),
						before));
			}
			else if (operation instanceof GiveUpPermits) {
				for (Iterator<Pending> it = this.pending.iterator(); it.hasNext();) {
					Pending oldest = it.next();
					if (oldest.resource == null) {
						if (oldest.future.cancel(false)) {
							it.remove();
							this.settling.put("sem", System.nanoTime());
						}
						return;
					}
				}
			}
			else if (operation instanceof ReturnPermits give) {
				int permits = Math.min(give.permits(), this.permitsHeld);
				if (permits > 0) {
					this.semaphores[permits % 2].release(permits);
					this.permitsHeld -= permits;
				}
			}
			else if (operation instanceof Pause pause) {
				Thread.sleep(pause.millis());
			}
		}

		private void release(int actor, int nth, String at) throws Exception {
			List<Resource> held = new ArrayList<>();
			for (Resource resource : Resource.values()) {
				if (!holds(actor, resource).isEmpty()) {
					held.add(resource);
				}
			}
			if (held.isEmpty() || (actor % 2 == 0 && this.threads[actor].busy())) {
				return;
			}
			Resource wanted = Resource.values()[nth % Resource.values().length];
			releaseOne(actor, held.contains(wanted) ? wanted : held.get(nth % held.size()), at);
		}

		private void releaseOne(int actor, Resource resource, String at) throws Exception {
			List<Hold> list = holds(actor, resource);
			Hold hold = list.remove(list.size() - 1);
			long before = redisMicros();
			try {
				if (actor % 2 == 0) {
					this.threads[actor].unlock(lock(actor, resource));
				}
				else {
					lock(actor, resource).unlock(this.owners[actor]);
				}
			}
			catch (IllegalMonitorStateException ex) {
				List<Hold> gone = new ArrayList<>(list);
				gone.add(hold);
				list.clear();
				if (hold.fixed && before + SLACK_MICROS < hold.low) {
					throw new AssertionError(at + ": " + this.owners[actor] + " could not release " + resource
							+ ", held with a lease that runs for another " + (hold.low - before) / 1000 + " ms", ex);
				}
				if (!hold.fixed && !lostAny(Set.of(actor), resource.key, gone)) {
					throw new AssertionError(at + ": " + this.owners[actor] + " could not release its hold of " + resource
							+ " under the watchdog, and no loss was reported within " + CONFIRM, ex);
				}
			}
		}

		/** Takes in the acquisitions that ended since the last look. */
		private void harvest(String at) throws Exception {
			List<Pending> done = new ArrayList<>();
			for (Iterator<Pending> it = this.pending.iterator(); it.hasNext();) {
				Pending next = it.next();
				if (next.future.isDone()) {
					it.remove();
					done.add(next);
				}
			}
			if (done.isEmpty()) {
				return;
			}
			// The wins landed before now: a fixed lease ends by now + lease.
			long now = redisMicros();
			for (Pending next : done) {
				boolean won;
				try {
					won = next.future.get();
				}
				catch (ExecutionException ex) {
					if (ex.getCause() instanceof InterruptedException) {
						continue;
					}
					throw new AssertionError(at + ": an acquisition failed", ex.getCause());
				}
				if (!won) {
					continue;
				}
				if (next.resource == null) {
					this.permitsHeld += next.permits;
				}
				else if (next.actor % 2 == 0 && next.resource == Resource.FAIR) {
					holds(next.actor, next.resource)
						.add(new Hold(true, next.redisBefore + FAIR_LEASE_MILLIS * 1000, now + FAIR_LEASE_MILLIS * 1000,
								next.since));
				}
				else {
					holds(next.actor, next.resource).add(new Hold(false, Long.MAX_VALUE, Long.MAX_VALUE, next.since));
				}
			}
		}

		/** Drops holds reported lost, and fixed-lease holds surely past their lease at {@code now}. */
		private void forget(long now) {
			for (int actor = 0; actor < ACTORS; actor++) {
				for (Resource resource : Resource.values()) {
					String key = resource.key + "|" + this.owners[actor].id();
					holds(actor, resource).removeIf(hold -> hold.fixed ? now > hold.high + SLACK_MICROS
							: reported(key, hold.since));
				}
			}
		}

		/** Whether a loss of the lock and owner {@code key} was reported since {@code since}. */
		private boolean reported(String key, long since) {
			for (Report report : this.lost) {
				if (report.lockAndOwner().startsWith(key) && (since == Long.MIN_VALUE || report.nanos() - since >= 0)) {
					return true;
				}
			}
			return false;
		}

		boolean uncertain(int actor, Resource resource, long until) {
			for (Hold hold : holds(actor, resource)) {
				if (hold.fixed && until + SLACK_MICROS >= hold.low) {
					return true;
				}
			}
			return false;
		}

		boolean young(String key) {
			Long since = this.settling.get(key);
			return since != null && System.nanoTime() - since < SETTLE_NANOS;
		}

		boolean pendingOn(int actor, @Nullable Resource resource) {
			for (Pending next : this.pending) {
				if (next.actor == actor && next.resource == resource) {
					return true;
				}
			}
			return false;
		}

		boolean busyName(String key) {
			for (Pending next : this.pending) {
				if (next.resource != null && next.resource.key.equals(key)) {
					return true;
				}
			}
			for (int actor = 0; actor < ACTORS; actor++) {
				for (Resource resource : Resource.values()) {
					if (resource.key.equals(key) && (!holds(actor, resource).isEmpty() || young(actor + "|" + resource))) {
						return true;
					}
				}
			}
			return false;
		}

		void check(String at) throws Exception {
			harvest(at);
			long start = redisMicros();
			forget(start);
			checkExclusion(at, start);
			checkCounts(at, false);
			checkFree(at);
			checkPermits(at, false);
		}

		/** Among the holds surely in force, one owner per lock, and no other owner's reads beside a write. */
		private void checkExclusion(String at, long now) throws Exception {
			Map<String, Set<Integer>> exclusive = new HashMap<>();
			Map<String, Set<Integer>> readers = new HashMap<>();
			for (int actor = 0; actor < ACTORS; actor++) {
				for (Resource resource : Resource.values()) {
					List<Hold> list = holds(actor, resource);
					if (list.isEmpty() || uncertain(actor, resource, now)) {
						continue;
					}
					(resource == Resource.READ ? readers : exclusive).computeIfAbsent(resource.key, key -> new HashSet<>())
						.add(actor);
				}
			}
			for (Map.Entry<String, Set<Integer>> entry : exclusive.entrySet()) {
				Set<Integer> owners = entry.getValue();
				Set<Integer> beside = new HashSet<>(readers.getOrDefault(entry.getKey(), Set.of()));
				beside.removeAll(owners);
				if (owners.size() > 1 || (!owners.isEmpty() && !beside.isEmpty())) {
					Set<Integer> all = new HashSet<>(owners);
					all.addAll(beside);
					String what = at + ": " + names(all) + " all hold '" + entry.getKey() + "' at once";
					// Right only if one of them lost its hold (reported to the listener).
					List<Hold> involved = new ArrayList<>();
					for (int actor : all) {
						for (Resource resource : Resource.values()) {
							if (resource.key.equals(entry.getKey())) {
								involved.addAll(holds(actor, resource));
							}
						}
					}
					if (!lostAny(all, entry.getKey(), involved)) {
						throw new AssertionError(what + ", and no loss was reported within " + CONFIRM);
					}
				}
			}
		}

		/** An owner's hold count in Redis is what it was told, once nothing of its is under way. */
		private void checkCounts(String at, boolean end) throws Exception {
			for (int actor = 0; actor < ACTORS; actor++) {
				for (Resource resource : Resource.values()) {
					if (pendingOn(actor, resource)) {
						continue;
					}
					long before = redisMicros();
					int inRedis = lock(actor, resource).getHoldCount(this.owners[actor]);
					long after = redisMicros();
					if (uncertain(actor, resource, after)) {
						continue;
					}
					forget(before);
					int told = holds(actor, resource).size();
					if (inRedis > told && (end || !young(actor + "|" + resource))) {
						throw new AssertionError(at + ": " + this.owners[actor] + " holds " + resource + " ('" + resource.key
								+ "') " + inRedis + " time(s) in Redis but was told of " + told
								+ ": an acquisition that gave up or timed out kept its win");
					}
					if (inRedis < told) {
						confirmLost(at, actor, resource, this.owners[actor] + " was told of " + told + " hold(s) of "
								+ resource + " ('" + resource.key + "') but Redis has " + inRedis);
					}
				}
			}
		}

		/** A lock nobody holds or waits for is acquired at once by another owner. */
		private void checkFree(String at) throws Exception {
			for (String name : new String[] { Resource.LOCK.key, Resource.FAIR.key, Resource.WRITE.key }) {
				if (busyName(name)) {
					continue;
				}
				Resource resource = name.equals(Resource.LOCK.key) ? Resource.LOCK
						: name.equals(Resource.FAIR.key) ? Resource.FAIR : Resource.WRITE;
				DistributedReentrantLock lock = resource.on(this.wardens[0]);
				// A fair waiter that timed out on the other client may still be leaving the queue.
				boolean free = Eventually.holdsWithin(Duration.ofNanos(SETTLE_NANOS), () -> {
					LockOwner probe = this.wardens[0].newOwner();
					try {
						if (!lock.tryLock(probe, 0, TimeUnit.MILLISECONDS)) {
							return false;
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return false;
					}
					lock.unlock(probe);
					return true;
				});
				if (!free) {
					throw new AssertionError(at + ": '" + name + "' is held by nobody the model knows of and nobody waits for it,"
							+ " but another owner cannot acquire it within " + Duration.ofNanos(SETTLE_NANOS) + " (time to live "
							+ lock.remainingTimeToLive() + " ms): a win was lost");
				}
			}
		}

		private void checkPermits(String at, boolean end) {
			if (pendingOn(-1, null) || (!end && young("sem"))) {
				return;
			}
			int available = this.semaphores[0].availablePermits();
			if (available != PERMITS - this.permitsHeld) {
				throw new AssertionError(at + ": the semaphore has " + available + " permit(s) available, but "
						+ this.permitsHeld + " of " + PERMITS + " are held");
			}
		}

		/** A hold the owner was told of is gone from Redis: right only if its loss is reported. */
		private void confirmLost(String at, int actor, Resource resource, String what) throws Exception {
			for (Hold hold : holds(actor, resource)) {
				if (hold.fixed) {
					throw new AssertionError(at + ": " + what + ", within its fixed lease");
				}
			}
			if (!lostAny(Set.of(actor), resource.key, holds(actor, resource))) {
				throw new AssertionError(at + ": " + what + ": its watchdog let it go, and no loss was reported within "
						+ CONFIRM);
			}
		}

		/**
		 * Waits up to {@link #CONFIRM} for a loss reported of one of {@code actors} on {@code key} since
		 * the earliest of {@code holds} was asked for.
		 */
		private boolean lostAny(Set<Integer> actors, String key, List<Hold> holds) throws InterruptedException {
			long since = holds.stream().mapToLong(hold -> hold.since).min().orElse(Long.MIN_VALUE);
			boolean reported = Eventually.holdsWithin(CONFIRM, () -> actors.stream()
				.anyMatch(actor -> reported(key + "|" + this.owners[actor].id(), since)));
			if (reported) {
				forget(Long.MIN_VALUE);
			}
			return reported;
		}

		/**
		 * Ends the sequence: every wait is given up, every late win given back, the counts match,
		 * every hold is released, and then every lock is free and every permit back.
		 */
		void drain(String at) throws Exception {
			for (Pending next : List.copyOf(this.pending)) {
				if (next.actor % 2 == 0) {
					this.threads[next.actor].interrupt();
				}
				else if (next.future.cancel(false)) {
					this.pending.remove(next);
				}
			}
			for (Pending next : List.copyOf(this.pending)) {
				try {
					next.future.get(10, TimeUnit.SECONDS);
				}
				catch (ExecutionException ex) {
					// Taken in by harvest.
				}
			}
			harvest(at);
			forget(redisMicros());
			// Give-backs in flight land within the settling time.
			long deadline = System.nanoTime() + SETTLE_NANOS;
			while (true) {
				try {
					checkCounts(at, true);
					checkPermits(at, true);
					break;
				}
				catch (AssertionError ex) {
					if (System.nanoTime() > deadline) {
						throw ex;
					}
					Thread.sleep(20);
				}
			}
			for (int actor = 0; actor < ACTORS; actor++) {
				for (Resource resource : Resource.values()) {
					while (!holds(actor, resource).isEmpty()) {
						releaseOne(actor, resource, at);
					}
				}
			}
			this.settling.clear();
			if (this.permitsHeld > 0) {
				this.semaphores[1].release(this.permitsHeld);
				this.permitsHeld = 0;
			}
			checkFree(at);
			checkPermits(at, true);
		}

		private String names(Set<Integer> actors) {
			List<String> names = new ArrayList<>();
			for (int actor : actors) {
				names.add(this.owners[actor] + " (" + ((actor % 2 == 0) ? "thread" : "detached") + ", client " + actor / 2
						+ ")");
			}
			return String.join(", ", names);
		}

	}

	private static long redisMicros() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

}
