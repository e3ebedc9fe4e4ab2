package dev.warden.task.transaction;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleResult;
import dev.warden.test.postgres.PostgresServer;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The outbox on a real PostgreSQL server (Debian's, started by the harness): its shipped DDL, commit
 * and rollback, two instances sweeping one backlog (each transaction made once), a committing
 * process killed by its PID before Redis heard of the commit, and instances whose sessions are in
 * different time zones.
 */
class PostgresOutboxTests {

	private static PostgresServer postgres;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private OutboxFixture outboxes;

	private DriverManagerDataSource dataSource;

	private JdbcTemplate jdbc;

	@BeforeAll
	static void startPostgres() {
		postgres = PostgresServer.start();
	}

	@AfterAll
	static void stopPostgres() {
		postgres.close();
	}

	@BeforeEach
	void createTables() {
		redis.node().call("FLUSHALL");
		dataSource = new DriverManagerDataSource(postgres.jdbcUrl(), postgres.user(), "");
		jdbc = new JdbcTemplate(dataSource);
		outboxes = new OutboxFixture(dataSource);
		jdbc.execute("drop table if exists warden_task_outbox");
		jdbc.execute("drop table if exists orders");
		jdbc.execute("create table orders (id varchar(20) primary key)");
	}

	@AfterEach
	void closeOutboxes() {
		outboxes.close();
	}

	@Test
	void aMissingTableFailsTheCheckNamingTheDdlAndTheShippedDdlCreatesIt() {
		TaskOutbox outbox = outboxes.outbox(null, Duration.ofHours(1));
		assertThatIllegalStateException().isThrownBy(() -> outbox.checkTable(connection -> false))
			.withMessageContaining("'warden_task_outbox' is missing in PostgreSQL")
			.withMessageContaining("schema-postgresql.sql");

		outbox.checkTable(connection -> true);
		outbox.checkTable(connection -> true);
		outbox.checkTable(connection -> false);
	}

	@Test
	void aCommittedScheduleReachesRedisAndARolledBackOneLeavesNothing() throws Exception {
		AtomicReference<Warden> warden = new AtomicReference<>();
		TaskOutbox outbox = outboxes.outbox(warden::get, Duration.ofHours(1));
		outbox.checkTable(connection -> true);
		warden.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(outbox)));
		DelayedQueue<String> queue = warden.get().getDelayedQueue("orders", String.class);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));

		ScheduleResult committed = transactions.execute(status -> {
			jdbc.update("insert into orders values ('p-1')");
			return queue.schedule("p-1", "p-1", Duration.ofHours(1));
		});
		transactions.executeWithoutResult(status -> {
			jdbc.update("insert into orders values ('p-2')");
			queue.schedule("p-2", "p-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(committed.status()).isEqualTo(ScheduleResult.Status.PENDING_COMMIT);
		assertThat(queue.contains("p-1")).isTrue();
		assertThat(queue.contains("p-2")).isFalse();
		Eventually.await("the outbox emptied", () -> outboxes.rows() == 0);
	}

	@Test
	void twoInstancesSweepingOneBacklogMakeEachTransactionOnce() throws Exception {
		TaskOutbox cut = outboxes.outbox(null, Duration.ofHours(1));
		cut.checkTable(connection -> true);
		DelayedQueue<String> unreachable = clients.open(redis.node(), builder -> builder.taskWriteDeferral(cut))
			.getDelayedQueue("orders", String.class);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		for (int i = 0; i < 300; i++) {
			String id = "b-" + i;
			transactions.executeWithoutResult(status -> unreachable.schedule(id, id, Duration.ofHours(1)));
		}
		outboxes.awaitOlderThanTheRelayDelay();

		TaskOutbox first = sweeper();
		TaskOutbox second = sweeper();
		CompletableFuture<Integer> one = CompletableFuture.supplyAsync(first::sweepAll);
		CompletableFuture<Integer> other = CompletableFuture.supplyAsync(second::sweepAll);

		assertThat(one.get() + other.get()).as("transactions made, by both together").isEqualTo(300);
		assertThat(outboxes.rows()).isZero();
		assertThat(redis.node().call("HLEN", "warden:task:{orders}:tasks")).isEqualTo(300L);
	}

	@Test
	void aCommitWhoseProcessDiesBeforeRedisHearsOfItIsMadeByAnotherInstance() throws Exception {
		outboxes.outbox(null, Duration.ofHours(1)).checkTable(connection -> true);
		try (ForkedJvm producer = ForkedJvm.start("tx-producer-postgres", ForkedTransactionalProducer.class,
				redis.node().host(), Integer.toString(redis.node().port()), postgres.jdbcUrl(), "o-1", postgres.user())) {
			producer.awaitLine("COMMITTED", Duration.ofSeconds(60));
			producer.kill();
		}
		assertThat(outboxes.rows()).as("the schedule, committed with the order").isEqualTo(1);
		assertThat(redis.node().call("HEXISTS", "warden:task:{orders}:tasks", "o-1")).isEqualTo(0L);

		List<String> ran = new CopyOnWriteArrayList<>();
		AtomicReference<Warden> survivor = new AtomicReference<>();
		TaskOutbox outbox = outboxes.outbox(survivor::get, Duration.ofMillis(100));
		survivor.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(outbox)));
		survivor.get().getDelayedQueue("orders", String.class).consume(task -> ran.add(task.payload()));

		Eventually.await("the order's task run by the other instance", Duration.ofSeconds(30), () -> ran.size() == 1);
		assertThat(ran).containsExactly("o-1");
	}

	@Test
	void aWriteCommittedEastOfUtcIsRelayedByAnInstanceWestOfIt() throws Exception {
		outboxes.outbox(null, Duration.ofHours(1)).checkTable(connection -> true);
		OutboxTimeZoneTests.relayedAcrossZones(dataSource, redis.node(), clients, OutboxTimeZoneTests.EAST,
				OutboxTimeZoneTests.WEST);
	}

	@Test
	void aWriteCommittedWestOfUtcIsNotRelayedBeforeTheRelayDelayByAnInstanceEastOfIt() {
		outboxes.outbox(null, Duration.ofHours(1)).checkTable(connection -> true);
		OutboxTimeZoneTests.notRelayedEarlyAcrossZones(dataSource, redis.node(), clients, OutboxTimeZoneTests.WEST,
				OutboxTimeZoneTests.EAST);
	}

	private TaskOutbox sweeper() {
		AtomicReference<Warden> warden = new AtomicReference<>();
		TaskOutbox outbox = outboxes.outbox(warden::get, Duration.ofHours(1));
		warden.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(outbox)));
		return outbox;
	}

}
