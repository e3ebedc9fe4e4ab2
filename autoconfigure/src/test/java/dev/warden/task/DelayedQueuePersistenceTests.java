package dev.warden.task;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class DelayedQueuePersistenceTests {

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void pendingTasksSurviveARedisRestartWithAppendOnlyFile() throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("aof-tasks").appendOnly(true)
			.option("appendfsync", "always"))) {
			Warden producer = clients.open(node);
			DelayedQueue<Integer> queue = producer.getDelayedQueue("durable", Integer.class);
			for (int i = 0; i < 50; i++) {
				queue.schedule("task-" + i, i, Duration.ofMillis(500 + i * 10L));
			}
			clients.close(producer);

			node.restart();

			CountDownLatch fired = new CountDownLatch(50);
			Warden consumer = clients.open(node, options -> options.shutdownGrace(Duration.ofSeconds(5)));
			consumer.getDelayedQueue("durable", Integer.class).consume(delivery -> fired.countDown());
			assertThat(fired.await(20, TimeUnit.SECONDS)).isTrue();
		}
	}

}
