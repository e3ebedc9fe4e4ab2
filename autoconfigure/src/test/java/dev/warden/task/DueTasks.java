package dev.warden.task;

import java.time.Duration;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;

/** Queues of tasks due at once, for the tests of how consumers take them. */
final class DueTasks {

	private DueTasks() {
	}

	/**
	 * A queue of {@code tasks} tasks due now, {@code task-0}…, on a new client with that many handler
	 * slots (and a shutdown grace of 5 s).
	 */
	static DelayedQueue<Integer> dueNow(WardenClients clients, RedisNode node, String name, int tasks,
			int concurrency) {
		Warden warden = clients.open(node,
				options -> options.taskConcurrency(concurrency).shutdownGrace(Duration.ofSeconds(5)));
		DelayedQueue<Integer> queue = warden.getDelayedQueue(name, Integer.class);
		for (int i = 0; i < tasks; i++) {
			queue.schedule("task-" + i, i, Duration.ZERO);
		}
		return queue;
	}

}
