package dev.warden.task.transaction;

import java.time.Duration;
import java.time.LocalDateTime;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleResult;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task writes inside transactions in which the outbox's database takes no part (a message broker's
 * transaction manager, say), on H2 and real Redis: they are made when the transaction commits, never
 * before, however long it lasts, and never after it rolls back.
 */
class OtherResourceTransactionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private OutboxFixture outboxes;

	private JdbcTemplate jdbc;

	private TaskOutbox outbox;

	private DelayedQueue<String> queue;

	private final TransactionTemplate transactions = new TransactionTemplate(new OtherResourceTransactionManager());

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		SimpleDriverDataSource dataSource = OutboxFixture.h2("other-resource");
		jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("create table orders (id varchar(20) primary key)");
		outboxes = new OutboxFixture(dataSource);
		// Sweeping often, so that a row would be relayed soon after the relay delay.
		queue = outboxes.ordersQueue(clients, redis.node(), Duration.ofMillis(20), made -> outbox = made);
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void aTransactionLongerThanTheRelayDelayIsMadeAtItsCommitAndNotBefore() {
		ScheduleResult result = transactions.execute(status -> {
			ScheduleResult scheduled = queue.schedule("m-1", "m-1", Duration.ofHours(1));
			awaitSweepsPastTheRelayDelay();
			assertThat(queue.contains("m-1")).as("in Redis before the commit, past the relay delay").isFalse();
			assertThat(outboxes.rows()).as("rows committed before the transaction").isZero();
			return scheduled;
		});

		assertThat(result.status()).isEqualTo(ScheduleResult.Status.PENDING_COMMIT);
		assertThat(queue.contains("m-1")).as("made at the commit").isTrue();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void aLongTransactionThatRollsBackLeavesNothingEvenPastTheRelayDelay() {
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-2", "m-2", Duration.ZERO);
			awaitSweepsPastTheRelayDelay();
			assertThat(queue.contains("m-2")).as("in Redis before the rollback").isFalse();
			status.setRollbackOnly();
		});
		awaitSweepsPastTheRelayDelay();

		assertThat(queue.contains("m-2")).as("in Redis after the rollback").isFalse();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void jdbcCodeInsideTheTransactionDoesNotMakeTheTableTakePart() {
		// The JDBC code binds an auto-commit connection to the transaction: its own row commits at once,
		// and so would an outbox row written on it.
		transactions.executeWithoutResult(status -> {
			jdbc.update("insert into orders values ('m-3')");
			queue.schedule("m-3", "m-3", Duration.ZERO);
			status.setRollbackOnly();
		});
		awaitSweepsPastTheRelayDelay();

		assertThat(queue.contains("m-3")).as("in Redis after the rollback").isFalse();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void aScheduleThenACancelStoresNothingEvenPastTheRelayDelay() {
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-4", "m-4", Duration.ofHours(1));
			awaitSweepsPastTheRelayDelay();
			queue.cancel("m-4");
			assertThat(queue.contains("m-4")).as("in Redis between the schedule and the cancel").isFalse();
		});

		assertThat(queue.contains("m-4")).isFalse();
		assertThat(outboxes.rows()).isZero();
	}

	@Test
	void aWriteFromAnAfterCommitCallbackIsMadeToo() {
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-5", "m-5", Duration.ofHours(1));
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					queue.schedule("m-6", "m-6", Duration.ofHours(1));
				}

			});
		});

		assertThat(queue.contains("m-5")).isTrue();
		assertThat(queue.contains("m-6")).as("scheduled after the commit").isTrue();
	}

	@Test
	void writesThatCannotReachRedisAtTheCommitAreStoredForTheSweep() throws Exception {
		DelayedQueue<String> unreachable = clients
			.open(redis.node(), builder -> builder.taskWriteDeferral(outboxes.outbox(null, Duration.ofHours(1))))
			.getDelayedQueue("orders", String.class);

		transactions.executeWithoutResult(status -> unreachable.schedule("m-7", "m-7", Duration.ofHours(1)));

		assertThat(outboxes.rows()).as("stored after the commit").isEqualTo(1);
		Eventually.await("the write made by the sweep", () -> queue.contains("m-7"));
		Eventually.await("the outbox emptied", () -> outboxes.rows() == 0);
	}

	/**
	 * Lets the relay delay pass, by the database's clock, and then two sweeps end: the second began
	 * after it had passed.
	 */
	private void awaitSweepsPastTheRelayDelay() {
		LocalDateTime past = outboxes.now().plus(OutboxFixture.RELAY_AFTER).plus(Duration.ofMillis(100));
		try {
			Eventually.await("the relay delay passed", () -> outboxes.now().isAfter(past));
			long sweeps = outbox.sweeps();
			Eventually.await("two sweeps past the relay delay", () -> outbox.sweeps() >= sweeps + 2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
