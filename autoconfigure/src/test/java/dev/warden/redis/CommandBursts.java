package dev.warden.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/** Bursts of commands sent at once from many threads, for the flush coalescing tests. */
final class CommandBursts {

	private CommandBursts() {
	}

	/**
	 * Starts {@code threads} threads at once, each sending {@code perThread} {@code INCR}s of its own
	 * key without waiting, and asserts that each was answered 1, 2, 3…: every command ran once, in
	 * the order its thread sent it.
	 * @param keyOfThread the key of each thread, by its index
	 */
	static void assertAnsweredInOrder(RedisEngine engine, int threads, int perThread, IntFunction<String> keyOfThread)
			throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<List<Long>>> sent = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				String key = keyOfThread.apply(thread);
				sent.add(pool.submit(() -> {
					start.await();
					List<CompletableFuture<Long>> replies = new ArrayList<>();
					for (int i = 0; i < perThread; i++) {
						replies.add(engine.commands().incr(key).toCompletableFuture());
					}
					List<Long> values = new ArrayList<>();
					for (CompletableFuture<Long> reply : replies) {
						values.add(reply.get(30, TimeUnit.SECONDS));
					}
					return values;
				}));
			}
			start.countDown();
			for (Future<List<Long>> thread : sent) {
				List<Long> values = thread.get(60, TimeUnit.SECONDS);
				for (int i = 0; i < perThread; i++) {
					assertThat(values.get(i)).isEqualTo(i + 1L);
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
