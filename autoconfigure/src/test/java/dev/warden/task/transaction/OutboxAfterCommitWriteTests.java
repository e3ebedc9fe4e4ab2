package dev.warden.task.transaction;

import java.time.Duration;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write made from an after-commit callback of a transaction that already wrote through the outbox:
 * the transaction is over, and the write is made at once. (It was joined to the transaction's rows,
 * and deleted with them once they were made.)
 */
class OutboxAfterCommitWriteTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private OutboxFixture outboxes;

	private TransactionTemplate transaction;

	private DelayedQueue<String> queue;

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		SimpleDriverDataSource dataSource = OutboxFixture.h2("after-commit");
		outboxes = new OutboxFixture(dataSource);
		queue = outboxes.ordersQueue(clients, redis.node(), Duration.ofMillis(100), outbox -> {
		});
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void aWriteFromAnAfterCommitCallbackOfATransactionThatAlreadyWroteIsMadeAtOnce() throws Exception {
		transaction.executeWithoutResult(status -> {
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			// Registered after the outbox's synchronization, as a @TransactionalEventListener
			// published after the first write is.
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					queue.schedule("o-2", "o-2", Duration.ofHours(1));
				}

			});
		});
		assertThat(queue.contains("o-1")).as("made at the commit").isTrue();
		assertThat(queue.contains("o-2")).as("the after-commit write, made at once").isTrue();

		// And nothing of it is left for a sweep to make again, nor deleted before it was made.
		Eventually.await("the transaction's rows deleted", () -> outboxes.rows() == 0);
		assertThat(queue.contains("o-2")).isTrue();
	}

}
