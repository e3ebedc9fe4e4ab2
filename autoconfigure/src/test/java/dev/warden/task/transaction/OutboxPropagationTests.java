package dev.warden.task.transaction;

import java.time.Duration;

import javax.sql.DataSource;

import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleResult;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * One test per row of the table of guarantees in {@code docs/transactions.md}, on H2 and real
 * Redis: what becomes of a write under each propagation, and under each kind of transaction manager
 * (JPA and reactive R2DBC in {@link OutboxJpaAndR2dbcTests}).
 */
class OutboxPropagationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private DataSource dataSource;

	private OutboxFixture outboxes;

	private JdbcTemplate jdbc;

	private DelayedQueue<String> queue;

	private DataSourceTransactionManager transactions;

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		dataSource = OutboxFixture.h2("propagation");
		jdbc = new JdbcTemplate(dataSource);
		outboxes = new OutboxFixture(dataSource);
		queue = outboxes.ordersQueue(clients, redis.node());
		transactions = new DataSourceTransactionManager(dataSource);
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void required_aRowInTheTransactionMadeAtItsCommitAndNothingAfterARollback() {
		ScheduleResult result = template(transactions, TransactionDefinition.PROPAGATION_REQUIRED).execute(status -> {
			ScheduleResult scheduled = queue.schedule("r-1", "r-1", Duration.ofHours(1));
			assertThat(rowsOnTheTransactionsConnection()).as("the row, in the transaction").isEqualTo(1);
			assertThat(queue.contains("r-1")).as("before the commit").isFalse();
			return scheduled;
		});
		template(transactions, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
			queue.schedule("r-2", "r-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(result.status()).isEqualTo(ScheduleResult.Status.PENDING_COMMIT);
		assertThat(queue.contains("r-1")).isTrue();
		assertThat(queue.contains("r-2")).isFalse();
	}

	@Test
	void requiresNew_madeAtTheInnerCommitWhateverBecomesOfTheOuterOne() {
		assertThatIllegalStateException()
			.isThrownBy(() -> template(transactions, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(
					status -> {
						template(transactions, TransactionDefinition.PROPAGATION_REQUIRES_NEW)
							.executeWithoutResult(inner -> queue.schedule("n-1", "n-1", Duration.ofHours(1)));
						assertThat(queue.contains("n-1")).as("at the inner commit").isTrue();
						throw new IllegalStateException("outer failed");
					}));

		assertThat(queue.contains("n-1")).isTrue();
	}

	@Test
	void nested_aRolledBackSavepointDropsItsWritesAndTheOuterCommitMakesTheRest() {
		template(transactions, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
			queue.schedule("s-1", "s-1", Duration.ofHours(1));
			assertThatIllegalStateException()
				.isThrownBy(() -> template(transactions, TransactionDefinition.PROPAGATION_NESTED)
					.executeWithoutResult(inner -> {
						queue.schedule("s-2", "s-2", Duration.ofHours(1));
						throw new IllegalStateException("nested failed");
					}));
		});

		assertThat(queue.contains("s-1")).isTrue();
		assertThat(queue.contains("s-2")).isFalse();
	}

	@Test
	void notSupported_madeAtOnceInsideASuspendedTransaction() {
		assertThatIllegalStateException()
			.isThrownBy(() -> template(transactions, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(
					status -> {
						template(transactions, TransactionDefinition.PROPAGATION_NOT_SUPPORTED)
							.executeWithoutResult(none -> queue.schedule("u-1", "u-1", Duration.ofHours(1)));
						assertThat(queue.contains("u-1")).as("at once").isTrue();
						throw new IllegalStateException("outer failed");
					}));

		assertThat(queue.contains("u-1")).isTrue();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void supportsWithoutATransaction_madeAtOnce() {
		assertThatIllegalStateException()
			.isThrownBy(() -> template(transactions, TransactionDefinition.PROPAGATION_SUPPORTS).executeWithoutResult(
					status -> {
						ScheduleResult result = queue.schedule("p-1", "p-1", Duration.ofHours(1));
						assertThat(result.status()).isNotEqualTo(ScheduleResult.Status.PENDING_COMMIT);
						assertThat(queue.contains("p-1")).as("at once").isTrue();
						throw new IllegalStateException("failed");
					}));

		assertThat(queue.contains("p-1")).isTrue();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void anotherDataSourcesManager_heldInMemoryMadeAtItsCommitNothingAfterARollback() {
		DataSourceTransactionManager other = new DataSourceTransactionManager(OutboxFixture.h2("another"));
		heldInMemory(other);
	}

	@Test
	void aManagerOfNoDatabase_heldInMemoryMadeAtItsCommitNothingAfterARollback() {
		heldInMemory(new OtherResourceTransactionManager());
	}

	private void heldInMemory(PlatformTransactionManager manager) {
		template(manager, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
			queue.schedule("m-1", "m-1", Duration.ofHours(1));
			assertThat(outboxes.rows()).as("no row").isZero();
			assertThat(queue.contains("m-1")).as("before the commit").isFalse();
		});
		template(manager, TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
			queue.schedule("m-2", "m-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(queue.contains("m-1")).as("made at the commit").isTrue();
		assertThat(queue.contains("m-2")).as("rolled back").isFalse();
		assertThat(outboxes.rows()).isZero();
	}

	/** The outbox rows as the current transaction sees them, on its own connection. */
	private int rowsOnTheTransactionsConnection() {
		Integer rows = jdbc.queryForObject("select count(*) from warden_task_outbox", Integer.class);
		return (rows != null) ? rows : -1;
	}

	private static TransactionTemplate template(PlatformTransactionManager manager, int propagation) {
		TransactionTemplate template = new TransactionTemplate(manager);
		template.setPropagationBehavior(propagation);
		return template;
	}

}
