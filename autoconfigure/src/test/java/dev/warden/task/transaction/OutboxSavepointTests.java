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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Task writes follow a transaction's savepoints, on H2 and real Redis: what a
 * {@code PROPAGATION_NESTED} block wrote is dropped when its savepoint is rolled back, as its rows
 * are, and the outer transaction's writes are made when it commits.
 */
class OutboxSavepointTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private OutboxFixture outboxes;

	private JdbcTemplate jdbc;

	private TransactionTemplate outer;

	private TransactionTemplate nested;

	private DelayedQueue<String> queue;

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		SimpleDriverDataSource dataSource = OutboxFixture.h2("savepoints");
		jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("create table orders (id varchar(20) primary key)");
		outboxes = new OutboxFixture(dataSource);
		queue = outboxes.ordersQueue(clients, redis.node());
		DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
		outer = new TransactionTemplate(transactions);
		nested = new TransactionTemplate(transactions);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void aScheduleInARolledBackNestedBlockIsNotMadeWhenTheOuterTransactionCommits() throws Exception {
		outer.executeWithoutResult(status -> {
			order("o-1");
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			assertThatIllegalStateException().isThrownBy(() -> nested.executeWithoutResult(inner -> {
				order("o-2");
				queue.schedule("o-2", "o-2", Duration.ofHours(1));
				throw new IllegalStateException("nested block failed");
			}));
		});

		assertThat(orders()).as("the savepoint rolled back, the transaction committed").isEqualTo(1);
		assertThat(queue.contains("o-1")).as("the outer transaction's schedule").isTrue();
		assertThat(queue.contains("o-2")).as("the rolled-back block's schedule").isFalse();
		Eventually.await("the outbox emptied", () -> outboxes.rows() == 0);
	}

	@Test
	void aCancelInARolledBackNestedBlockLeavesTheTaskPending() throws Exception {
		outer.executeWithoutResult(status -> queue.schedule("o-1", "o-1", Duration.ofHours(1)));
		assertThat(queue.contains("o-1")).isTrue();

		outer.executeWithoutResult(status -> {
			order("o-1");
			assertThatIllegalStateException().isThrownBy(() -> nested.executeWithoutResult(inner -> {
				queue.cancel("o-1");
				throw new IllegalStateException("payment failed");
			}));
		});

		assertThat(queue.contains("o-1")).as("the rolled-back cancel left the timeout pending").isTrue();
	}

	@Test
	void aFirstWriteInsideTheRolledBackBlockGoesWithItAndLaterOnesStay() {
		// The savepoint is taken before the transaction's first write.
		outer.executeWithoutResult(status -> {
			assertThatIllegalStateException().isThrownBy(() -> nested.executeWithoutResult(inner -> {
				queue.schedule("o-1", "o-1", Duration.ofHours(1));
				throw new IllegalStateException("nested block failed");
			}));
			queue.schedule("o-2", "o-2", Duration.ofHours(1));
		});

		assertThat(queue.contains("o-1")).isFalse();
		assertThat(queue.contains("o-2")).isTrue();
	}

	@Test
	void aReleasedInnerSavepointGoesWithTheOuterOneRolledBack() {
		outer.executeWithoutResult(status -> {
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			assertThatIllegalStateException().isThrownBy(() -> nested.executeWithoutResult(first -> {
				queue.schedule("o-2", "o-2", Duration.ofHours(1));
				// Released: its writes now belong to the enclosing block.
				nested.executeWithoutResult(second -> queue.schedule("o-3", "o-3", Duration.ofHours(1)));
				// Rolled back: only its own writes go.
				assertThatIllegalStateException().isThrownBy(() -> nested.executeWithoutResult(third -> {
					queue.schedule("o-4", "o-4", Duration.ofHours(1));
					throw new IllegalStateException("innermost failed");
				}));
				queue.schedule("o-5", "o-5", Duration.ofHours(1));
				throw new IllegalStateException("nested block failed");
			}));
			nested.executeWithoutResult(fourth -> queue.schedule("o-6", "o-6", Duration.ofHours(1)));
		});

		assertThat(queue.contains("o-1")).as("outer").isTrue();
		assertThat(queue.contains("o-2")).as("rolled-back block").isFalse();
		assertThat(queue.contains("o-3")).as("released inside the rolled-back block").isFalse();
		assertThat(queue.contains("o-4")).as("rolled back inside it").isFalse();
		assertThat(queue.contains("o-5")).as("rolled-back block, after an inner rollback").isFalse();
		assertThat(queue.contains("o-6")).as("a later block released").isTrue();
	}

	@Test
	void aSavepointRolledBackByHandKeepsTheWritesBeforeIt() {
		outer.executeWithoutResult(status -> {
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			Object savepoint = status.createSavepoint();
			queue.schedule("o-2", "o-2", Duration.ofHours(1));
			status.rollbackToSavepoint(savepoint);
			queue.schedule("o-3", "o-3", Duration.ofHours(1));
			status.rollbackToSavepoint(savepoint);
			status.releaseSavepoint(savepoint);
			queue.schedule("o-4", "o-4", Duration.ofHours(1));
		});

		assertThat(queue.contains("o-1")).isTrue();
		assertThat(queue.contains("o-2")).isFalse();
		assertThat(queue.contains("o-3")).isFalse();
		assertThat(queue.contains("o-4")).isTrue();
	}

	@Test
	void writesHeldInMemoryForAnotherDataSourcesTransactionFollowItsSavepointsToo() {
		// The transaction of another database, in which the outbox's takes no part.
		DataSourceTransactionManager other = new DataSourceTransactionManager(OutboxFixture.h2("other"));
		TransactionTemplate otherNested = new TransactionTemplate(other);
		otherNested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);

		new TransactionTemplate(other).executeWithoutResult(status -> {
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			assertThatIllegalStateException().isThrownBy(() -> otherNested.executeWithoutResult(inner -> {
				queue.schedule("o-2", "o-2", Duration.ofHours(1));
				throw new IllegalStateException("nested block failed");
			}));
		});

		assertThat(queue.contains("o-1")).isTrue();
		assertThat(queue.contains("o-2")).isFalse();
		assertThat(outboxes.rows()).as("held in memory, no row").isZero();
	}

	private void order(String id) {
		jdbc.update("insert into orders values (?)", id);
	}

	private int orders() {
		Integer orders = jdbc.queryForObject("select count(*) from orders", Integer.class);
		return (orders != null) ? orders : -1;
	}

}
