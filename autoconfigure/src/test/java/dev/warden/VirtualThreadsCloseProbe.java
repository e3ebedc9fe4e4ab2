package dev.warden;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import io.lettuce.core.RedisClient;

/**
 * What {@link VirtualThreadsCloseTests} runs, in a JVM of its own (Java 21 or later for virtual
 * threads): one handler slot, short handlers, then one that works for seconds while tasks claimed
 * beyond the slot wait behind it; the client closes with a short grace. Prints how many handlers
 * started after the close began, {@code DONE} last. Arguments: host, port, whether handlers run on
 * virtual threads.
 */
public final class VirtualThreadsCloseProbe {

	private VirtualThreadsCloseProbe() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		boolean virtual = Boolean.parseBoolean(args[2]);
		String label = virtual ? "VIRTUAL" : "PLATFORM";
		String name = "close-" + label.toLowerCase();
		RedisClient redis = RedisClient.create("redis://" + host + ":" + port);
		try {
			Warden warden = Warden.builder(redis)
				.taskVirtualThreads(virtual)
				.taskConcurrency(1)
				.shutdownGrace(Duration.ofMillis(200))
				.build();
			DelayedQueue<Integer> queue = warden.getDelayedQueue(name, Integer.class);
			for (int i = 0; i < 400; i++) {
				queue.schedule("task-" + i, i, Duration.ZERO);
			}
			AtomicInteger started = new AtomicInteger();
			AtomicBoolean closing = new AtomicBoolean();
			AtomicInteger startedAfterClose = new AtomicInteger();
			CountDownLatch anyAfterClose = new CountDownLatch(1);
			CountDownLatch slowStarted = new CountDownLatch(1);
			queue.consume(delivery -> {
				if (closing.get()) {
					startedAfterClose.incrementAndGet();
					anyAfterClose.countDown();
				}
				if (started.incrementAndGet() == 100) {
					slowStarted.countDown();
					// The handler's own work, far longer than the grace.
					Thread.sleep(3_000);
				}
			}, new ConsumerOptions(3, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMillis(600)));
			if (!slowStarted.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The 100th handler did not start");
			}
			closing.set(true);
			warden.close();
			// Bounded look: a handler started after the close.
			anyAfterClose.await(5, TimeUnit.SECONDS);
			System.out.println(label + " startedAfterClose=" + startedAfterClose.get());
		}
		finally {
			redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		System.out.println("DONE");
	}

}
