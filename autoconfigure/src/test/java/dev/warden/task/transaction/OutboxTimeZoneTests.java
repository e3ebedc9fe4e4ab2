package dev.warden.task.transaction;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox's times do not depend on the time zone of the sessions, on H2 (each session with its
 * own {@code SET TIME ZONE}) and real Redis: a write committed by an instance in one zone whose Redis
 * write failed is relayed by an instance in another once the relay delay has passed, neither hours
 * later nor at once. The same runs on PostgreSQL in {@link PostgresOutboxTests}.
 */
class OutboxTimeZoneTests {

	/** East of UTC, with no daylight saving time. */
	static final String EAST = "Asia/Tokyo";

	/** West of UTC. */
	static final String WEST = "America/Los_Angeles";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private DataSource dataSource;

	private OutboxFixture outboxes;

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		dataSource = OutboxFixture.h2("zones");
		outboxes = new OutboxFixture(dataSource);
		outboxes.outbox(null, Duration.ofHours(1)).checkTable(connection -> true);
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void aWriteCommittedEastOfUtcIsRelayedByAnInstanceWestOfIt() throws Exception {
		relayedAcrossZones(dataSource, redis.node(), clients, EAST, WEST);
	}

	@Test
	void aWriteCommittedWestOfUtcIsNotRelayedBeforeTheRelayDelayByAnInstanceEastOfIt() {
		notRelayedEarlyAcrossZones(dataSource, redis.node(), clients, WEST, EAST);
	}

	@Test
	void rowsOfAnOlderVersionAreRelayedOnlyOnceSeenForTheRelayDelay() throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		// As an older version wrote them: a transaction id without the UTC mark, and the local time
		// of a session in an unknown zone, here hours ahead and hours behind UTC.
		LocalDateTime now = outboxes.now();
		legacyRow(jdbc, "0a1b2c3d-0000-4000-1", "l-1", now.plusHours(14));
		legacyRow(jdbc, "0a1b2c3d-0000-4000-2", "l-2", now.minusHours(12));
		AtomicReference<Warden> warden = new AtomicReference<>();
		TaskOutbox sweeper = outboxes.outbox(warden::get, Duration.ofHours(1));
		warden.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(sweeper)));
		DelayedQueue<String> queue = warden.get().getDelayedQueue("orders", String.class);

		assertThat(sweeper.sweepAll()).as("made when first seen, however old they look").isZero();
		assertThat(queue.contains("l-2")).isFalse();

		Eventually.await("both made once seen for the relay delay", () -> sweeper.sweepAll() >= 0
				&& queue.contains("l-1") && queue.contains("l-2"));
		assertThat(outboxes.rows()).isZero();
	}

	/**
	 * An instance whose sessions are in {@code writerZone} commits a schedule but cannot reach Redis;
	 * one in {@code sweeperZone} makes it once the relay delay has passed.
	 */
	static void relayedAcrossZones(DataSource dataSource, RedisNode node, WardenClients clients,
			String writerZone, String sweeperZone) throws InterruptedException {
		OutboxFixture writers = new OutboxFixture(OutboxFixture.inTimeZone(dataSource, writerZone));
		OutboxFixture sweepers = new OutboxFixture(OutboxFixture.inTimeZone(dataSource, sweeperZone));
		try (writers; sweepers) {
			DelayedQueue<String> unreachable = writer(writers, node, clients);
			new TransactionTemplate(new DataSourceTransactionManager(writers.dataSource()))
				.executeWithoutResult(status -> unreachable.schedule("z-1", "z-1", Duration.ofHours(1)));
			assertThat(writers.rows()).as("kept: Redis unreachable at the commit").isEqualTo(1);

			AtomicReference<Warden> warden = new AtomicReference<>();
			TaskOutbox sweeper = sweepers.outbox(warden::get, Duration.ofMillis(50));
			warden.set(clients.open(node, builder -> builder.taskWriteDeferral(sweeper)));

			Eventually.await("the write relayed by the instance in " + sweeperZone, Duration.ofSeconds(20),
					() -> warden.get().getDelayedQueue("orders", String.class).contains("z-1"));
			Eventually.await("the outbox emptied", () -> sweepers.rows() == 0);
		}
	}

	/**
	 * An instance whose sessions are in {@code writerZone} commits a schedule but cannot reach Redis;
	 * one in {@code sweeperZone}, whose relay delay is an hour, does not make it.
	 */
	static void notRelayedEarlyAcrossZones(DataSource dataSource, RedisNode node, WardenClients clients,
			String writerZone, String sweeperZone) {
		OutboxFixture writers = new OutboxFixture(OutboxFixture.inTimeZone(dataSource, writerZone));
		DataSource sweeping = OutboxFixture.inTimeZone(dataSource, sweeperZone);
		try (writers) {
			DelayedQueue<String> unreachable = writer(writers, node, clients);
			new TransactionTemplate(new DataSourceTransactionManager(writers.dataSource()))
				.executeWithoutResult(status -> unreachable.schedule("z-2", "z-2", Duration.ofHours(1)));

			AtomicReference<Warden> warden = new AtomicReference<>();
			try (TaskOutbox sweeper = new TaskOutbox(sweeping, OutboxTable.DEFAULT_NAME, warden::get, Set.of(),
					Duration.ofHours(1), Duration.ofHours(1))) {
				warden.set(clients.open(node, builder -> builder.taskWriteDeferral(sweeper)));

				assertThat(sweeper.sweepAll()).as("made by the instance in " + sweeperZone + " within its relay delay")
					.isZero();
				assertThat(writers.rows()).isEqualTo(1);
			}
		}
	}

	private static DelayedQueue<String> writer(OutboxFixture writers, RedisNode node, WardenClients clients) {
		TaskOutbox cut = writers.outbox(null, Duration.ofHours(1));
		return clients.open(node, builder -> builder.taskWriteDeferral(cut))
			.getDelayedQueue("orders", String.class);
	}

	private static void legacyRow(JdbcTemplate jdbc, String txId, String taskId, LocalDateTime createdAt) {
		jdbc.update("insert into warden_task_outbox (tx_id, seq, queue_name, task_id, kind, payload, delay_millis,"
				+ " due_at_millis, replace_task, created_at) values (?, 0, 'orders', ?, 'SCHEDULE', ?, 3600000, -1,"
				+ " false, ?)", txId, taskId, "\"" + taskId + "\"", createdAt);
	}

}
