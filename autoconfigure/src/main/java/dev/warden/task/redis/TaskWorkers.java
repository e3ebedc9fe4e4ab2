package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The bounded pool that runs the task handlers of one client, shared by all its consumers. A
 * consumer reserves slots before it claims tasks, so it never claims more than can run at once:
 * nothing claimed waits in a local queue while its visibility timeout runs.
 */
public final class TaskWorkers implements AutoCloseable {

	private final int concurrency;

	private final String threadPrefix;

	private final Semaphore slots;

	private final List<Runnable> waitingForSlot = new ArrayList<>();

	private @Nullable ThreadPoolExecutor executor;

	/**
	 * @param concurrency how many handlers run at once
	 * @param threadPrefix prefix of the handler threads' names
	 */
	public TaskWorkers(int concurrency, String threadPrefix) {
		if (concurrency < 1) {
			throw new IllegalArgumentException("Task concurrency must be at least 1: " + concurrency);
		}
		this.concurrency = concurrency;
		this.threadPrefix = threadPrefix;
		this.slots = new Semaphore(concurrency);
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
		if (executor == null) {
			AtomicInteger count = new AtomicInteger();
			ThreadFactory factory = runnable -> {
				Thread thread = new Thread(runnable, threadPrefix + count.incrementAndGet());
				thread.setDaemon(true);
				return thread;
			};
			ThreadPoolExecutor created = new ThreadPoolExecutor(concurrency, concurrency, 60, TimeUnit.SECONDS,
					new LinkedBlockingQueue<>(), factory);
			created.allowCoreThreadTimeOut(true);
			executor = created;
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

}
