package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The bounded pool that runs the task handlers of one client, shared by all its consumers. A
 * consumer reserves slots before it claims tasks. It reserves at most as many as can run at once,
 * the concurrency, except for the slots that its handlers freed during its last claim's round trip:
 * when handlers are short, those are free again by the time the next claim's reply is in, and a
 * consumer may claim for them too, while no task waits for a handler thread, up to
 * {@value #CLAIMED_BEYOND_RUNNING} times the concurrency beyond it ({@link #reserve}). Such tasks wait in the pool's queue for a handler thread, their claims
 * kept alive meanwhile; no more than the concurrency run at once. When handlers are slow, none
 * free during a round trip and nothing is claimed beyond what can run.
 * <p>
 * Platform handler threads are a work-stealing pool in FIFO mode: a claim's tasks are handed over
 * together, a thread that finishes one takes the next without a hand-off, and an idle thread is woken
 * only while tasks wait. (A pool fed by one blocking queue woke a thread per task; when handlers are
 * short, as in a backlog's drain, parking and waking took most of the handler threads' CPU time.)
 */
public final class TaskWorkers implements AutoCloseable {

	/** How many times the concurrency a consumer may claim beyond the handlers that can run. */
	static final int CLAIMED_BEYOND_RUNNING = 3;

	private final int concurrency;

	private final int capacity;

	// Tasks handed to the pool whose handlers have not started: waiting for a thread.
	private final AtomicInteger waiting = new AtomicInteger();

	// With virtual threads, which are not pooled: how many handlers may run at once.
	private final @Nullable Semaphore running;

	private final String threadPrefix;

	private final Semaphore slots;

	private final List<Runnable> waitingForSlot = new ArrayList<>();

	private final boolean virtualThreads;

	private @Nullable ExecutorService executor;

	/**
	 * @param concurrency how many handlers run at once
	 * @param threadPrefix prefix of the handler threads' names
	 */
	public TaskWorkers(int concurrency, String threadPrefix) {
		this(concurrency, threadPrefix, false);
	}

	/**
	 * @param concurrency how many handlers run at once (with virtual threads too)
	 * @param threadPrefix prefix of the handler threads' names
	 * @param virtualThreads whether each handler runs on a virtual thread of its own (Java 21 and
	 * later) instead of a pooled platform thread
	 * @throws IllegalArgumentException when virtual threads are asked for on a Java without them
	 */
	public TaskWorkers(int concurrency, String threadPrefix, boolean virtualThreads) {
		if (concurrency < 1) {
			throw new IllegalArgumentException("Task concurrency must be at least 1: " + concurrency);
		}
		if (virtualThreads && !VirtualThreads.available()) {
			throw new IllegalArgumentException("Task handlers on virtual threads need Java 21 or later; this is Java "
					+ Runtime.version().feature());
		}
		this.concurrency = concurrency;
		this.threadPrefix = threadPrefix;
		this.virtualThreads = virtualThreads;
		this.capacity = concurrency * (1 + CLAIMED_BEYOND_RUNNING);
		this.slots = new Semaphore(capacity);
		this.running = virtualThreads ? new Semaphore(concurrency) : null;
	}

	/** {@return how many handlers run at once} */
	int concurrency() {
		return concurrency;
	}

	/** {@return how many slots are reserved: handlers running or waiting, and claims under way} */
	int inUse() {
		return capacity - slots.availablePermits();
	}

	/** {@return how many tasks handed to the pool wait for a handler thread} */
	int waiting() {
		return waiting.get();
	}

	/**
	 * Reserves at least {@code min} and up to {@code max} slots, such that at most
	 * {@code concurrency + beyond} are in use; none when fewer than {@code min} are free so.
	 * @param max at most this many
	 * @param min at least this many, else none (at least 1)
	 * @param beyond how many slots beyond the concurrency may be in use (capped at
	 * {@value #CLAIMED_BEYOND_RUNNING} times the concurrency)
	 * @return how many were reserved
	 */
	int reserve(int max, int min, int beyond) {
		int held = capacity - limit(beyond);
		for (;;) {
			int free = Math.min(max, slots.availablePermits() - held);
			if (free < Math.max(1, min)) {
				return 0;
			}
			if (slots.tryAcquire(free)) {
				return free;
			}
		}
	}

	private int limit(int beyond) {
		return concurrency + Math.max(0, Math.min(beyond, capacity - concurrency));
	}

	/** Whether handlers run on virtual threads. */
	public boolean virtualThreads() {
		return virtualThreads;
	}

	/** Gives back reserved slots, and lets consumers that found none try again. */
	void release(int count) {
		if (count > 0) {
			slots.release(count);
			runWaiting();
		}
	}

	/**
	 * Runs {@code action} once a slot is released, or now when {@link #reserve} would find
	 * {@code min} free with {@code beyond} already.
	 */
	void whenSlotFree(Runnable action, int min, int beyond) {
		synchronized (waitingForSlot) {
			waitingForSlot.add(action);
		}
		if (slots.availablePermits() - (capacity - limit(beyond)) >= Math.max(1, min)) {
			// Slots freed between the caller's failed reservation and the line above.
			runWaiting();
		}
	}

	private void runWaiting() {
		List<Runnable> waiting;
		synchronized (waitingForSlot) {
			if (waitingForSlot.isEmpty()) {
				return;
			}
			waiting = List.copyOf(waitingForSlot);
			waitingForSlot.clear();
		}
		waiting.forEach(Runnable::run);
	}

	/**
	 * Runs a handler on a reserved slot, once one of the concurrency's threads is free; the task must
	 * {@link #release} its slot when done. A task still waiting when the pool closes does not run.
	 */
	synchronized void execute(Runnable task) {
		if (executor == null && virtualThreads) {
			executor = VirtualThreads.perTaskExecutor(threadPrefix);
		}
		if (executor == null) {
			AtomicInteger count = new AtomicInteger();
			// At most as many daemon threads as slots; while the pool is idle, one is retired a minute.
			// A handler that blocks on a future gets no spare thread (saturated, it just blocks): each
			// handler running has a thread of its own already.
			executor = new ForkJoinPool(concurrency, pool -> {
				ForkJoinWorkerThread thread = new HandlerThread(pool);
				thread.setName(threadPrefix + count.incrementAndGet());
				return thread;
			}, null, true, concurrency, concurrency, 1, pool -> true, 60, TimeUnit.SECONDS);
		}
		Semaphore gate = running;
		waiting.incrementAndGet();
		try {
			submit(executor, gate, task);
		}
		catch (RuntimeException ex) {
			// Not taken (the pool closed): it will not wait either.
			waiting.decrementAndGet();
			throw ex;
		}
	}

	private void submit(ExecutorService executor, @Nullable Semaphore gate, Runnable task) {
		if (gate == null) {
			executor.execute(() -> {
				waiting.decrementAndGet();
				task.run();
			});
		}
		else {
			// A virtual thread each: those beyond the concurrency wait here, parked cheaply, until a
			// handler ends or the pool closes (which interrupts them).
			executor.execute(() -> {
				try {
					gate.acquire();
				}
				catch (InterruptedException ex) {
					waiting.decrementAndGet();
					Thread.currentThread().interrupt();
					return;
				}
				waiting.decrementAndGet();
				try {
					task.run();
				}
				finally {
					gate.release();
				}
			});
		}
	}

	/** Stops the handler threads (after the consumers have stopped). */
	@Override
	public synchronized void close() {
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	/** A handler thread of the pool: named by the client, daemon like every pool worker. */
	private static final class HandlerThread extends ForkJoinWorkerThread {

		HandlerThread(ForkJoinPool pool) {
			super(pool);
		}

	}

}
