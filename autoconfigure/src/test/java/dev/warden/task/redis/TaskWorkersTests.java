package dev.warden.task.redis;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handler pool's slots: how far a consumer may reserve beyond what can run, and that no more
 * handlers run at once than the concurrency, however many are reserved. (On virtual threads,
 * {@code VirtualThreadsTests} runs {@link #mostRunningAtOnce} on Java 21 or later.)
 */
public class TaskWorkersTests {

	@Test
	void reservesBeyondTheConcurrencyOnlyAsFarAsAskedAndAtMostThreeTimesIt() {
		try (TaskWorkers workers = new TaskWorkers(2, "test-workers-")) {
			assertThat(workers.reserve(100, 1, 0)).isEqualTo(2);
			assertThat(workers.reserve(100, 1, 0)).isZero();
			assertThat(workers.reserve(100, 1, 1)).isEqualTo(1);
			assertThat(workers.inUse()).isEqualTo(3);
			// Asked for far more beyond: three times the concurrency at most, so 8 in use in all.
			assertThat(workers.reserve(100, 1, 1_000)).isEqualTo(5);
			assertThat(workers.reserve(100, 1, 1_000)).isZero();
			workers.release(8);
			assertThat(workers.reserve(3, 1, 1_000)).as("at most max").isEqualTo(3);
			workers.release(3);
			assertThat(workers.reserve(100, 3, 0)).as("fewer than min free within the concurrency").isZero();
			assertThat(workers.reserve(100, 3, 2)).isEqualTo(4);
			workers.release(4);
			assertThat(workers.inUse()).isZero();
		}
	}

	@Test
	void aConsumerWaitingForSeveralSlotsRunsOnceThatManyAreFree() {
		try (TaskWorkers workers = new TaskWorkers(2, "test-workers-")) {
			assertThat(workers.reserve(100, 1, 0)).isEqualTo(2);
			AtomicInteger runs = new AtomicInteger();
			workers.whenSlotFree(runs::incrementAndGet, 2, 0);
			assertThat(runs).as("none free").hasValue(0);
			workers.release(1);
			assertThat(runs).as("any release runs the waiting, which check again").hasValue(1);
			workers.whenSlotFree(runs::incrementAndGet, 1, 0);
			assertThat(runs).as("one is free already: at once").hasValue(2);
			workers.release(1);
		}
	}

	@Test
	void countsTheTasksThatWaitForAHandlerThread() throws Exception {
		try (TaskWorkers workers = new TaskWorkers(1, "test-workers-")) {
			assertThat(workers.reserve(3, 1, 2)).isEqualTo(3);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CountDownLatch done = new CountDownLatch(3);
			for (int i = 0; i < 3; i++) {
				workers.execute(() -> {
					running.countDown();
					try {
						release.await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					workers.release(1);
					done.countDown();
				});
			}
			assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(workers.waiting()).as("two behind the one running").isEqualTo(2);
			release.countDown();
			assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(workers.waiting()).isZero();
			assertThat(workers.inUse()).isZero();
		}
	}

	@Test
	void noMoreHandlersRunAtOnceThanTheConcurrencyWhateverIsReserved() throws Exception {
		try (TaskWorkers workers = new TaskWorkers(2, "test-workers-")) {
			assertThat(mostRunningAtOnce(workers)).isEqualTo(2);
		}
	}

	/**
	 * Reserves every slot, four times the concurrency, and runs a handler on each; each holds its
	 * thread until all that can run have started.
	 * @return the most handlers that ran at once
	 */
	public static int mostRunningAtOnce(TaskWorkers workers) throws InterruptedException {
		int concurrency = workers.concurrency();
		int tasks = workers.reserve(Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		CountDownLatch started = new CountDownLatch(concurrency);
		Semaphore go = new Semaphore(0);
		CountDownLatch done = new CountDownLatch(tasks);
		for (int i = 0; i < tasks; i++) {
			workers.execute(() -> {
				most.accumulateAndGet(running.incrementAndGet(), Math::max);
				started.countDown();
				try {
					go.tryAcquire(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					running.decrementAndGet();
					done.countDown();
					workers.release(1);
				}
			});
		}
		if (!started.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The handlers did not start");
		}
		go.release(tasks);
		if (!done.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The handlers did not finish");
		}
		return most.get();
	}

}
