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
 * consumer reserves slots before it claims tasks, so it never claims more than can run at once:
 * nothing claimed waits in a local queue while its visibility timeout runs.
 * <p>
 * Platform handler threads are a work-stealing pool in FIFO mode: a claim's tasks are handed over
 * together, a thread that finishes one takes the next without a hand-off, and an idle thread is woken
 * only while tasks wait. (A pool fed by one blocking queue woke a thread per task; when handlers are
 * short, as in a backlog's drain, parking and waking took most of the handler threads' CPU time.)
 */
public final class TaskWorkers implements AutoCloseable {

	private final int concurrency;

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
	 * @param concurrency how many handlers run at once (with virtual threads too: the slots bound
	 * how many tasks a consumer claims)
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
		this.slots = new Semaphore(concurrency);
	}

	/** Whether handlers run on virtual threads. */
	public boolean virtualThreads() {
		return virtualThreads;
	}

	/** Reserves up to {@code max} free slots; returns how many were reserved. */
	int reserve(int max) {
		int reserved = 0;
		while (reserved < max && slots.tryAcquire()) {
			reserved++;
		}
		return reserved;
	}

	/** Gives back reserved slots, and lets consumers that found none try again. */
	void release(int count) {
		if (count > 0) {
			slots.release(count);
			runWaiting();
		}
	}

	/** Runs {@code action} once a slot is released. */
	void whenSlotFree(Runnable action) {
		synchronized (waitingForSlot) {
			waitingForSlot.add(action);
		}
		if (slots.availablePermits() > 0) {
			// A slot freed between the caller's failed reservation and the line above.
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

	/** Runs a handler on a reserved slot; the task must release its slot when done. */
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
		executor.execute(task);
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
