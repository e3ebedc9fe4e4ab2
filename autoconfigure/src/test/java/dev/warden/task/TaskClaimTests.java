package dev.warden.task;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler reads its task's claim; the claim is lost when Redis no longer holds its token (the task
 * was delivered again elsewhere, or purged), and the handler hears of it at the next extension.
 */
class TaskClaimTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void aHandlerSeesItsClaimAndHearsWhenItIsLost() throws Exception {
		Warden warden = clients.open(redis.node(), options -> options.shutdownGrace(Duration.ofSeconds(5)));
		DelayedQueue<String> queue = warden.getDelayedQueue("claims", String.class);
		AtomicReference<TaskClaim> seen = new AtomicReference<>();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch lost = new CountDownLatch(1);
		queue.consume(delivery -> {
			TaskClaim claim = TaskClaim.current();
			seen.set(claim);
			claim.onLost(lost::countDown);
			started.countDown();
			// Ends when told of the loss; bounded so that a broken build fails rather than hangs.
			lost.await(30, TimeUnit.SECONDS);
		}, ConsumerOptions.DEFAULTS.withVisibilityTimeout(Duration.ofMillis(600)));
		queue.schedule("t-1", "x", Duration.ZERO);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		TaskClaim claim = seen.get();
		assertThat(claim.queue()).isEqualTo("claims");
		assertThat(claim.id()).isEqualTo("t-1");
		assertThat(claim.isLost()).isFalse();

		// Another delivery's claim (tasks format 2: x:<id> holds the deliveries and the token).
		redis.node().call("HSET", "warden:task:{claims}:meta", "x:t-1", "2 another-consumer:1:1:x");

		assertThat(lost.await(30, TimeUnit.SECONDS)).as("told of the loss").isTrue();
		assertThat(claim.isLost()).isTrue();
		assertThat(TaskClaim.current()).as("outside a handler").isNull();
	}

}
