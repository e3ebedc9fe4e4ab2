package dev.warden.task.transaction;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Outboxes on one test database, with a short relay delay, closed together; and what tests read of
 * the table.
 */
final class OutboxFixture implements AutoCloseable {

	/** How old a committed write is before a sweep makes it. */
	static final Duration RELAY_AFTER = Duration.ofMillis(500);

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final List<TaskOutbox> outboxes = new CopyOnWriteArrayList<>();

	OutboxFixture(DataSource dataSource) {
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
	}

	/**
	 * An outbox on the table {@code warden_task_outbox}.
	 * @param warden the client that makes its writes; {@code null} for one that cannot make any (as
	 * if Redis were unreachable), whose writes stay in the table
	 * @param sweepInterval how often it sweeps
	 */
	TaskOutbox outbox(@Nullable Supplier<Warden> warden, Duration sweepInterval) {
		Supplier<Warden> client = (warden != null) ? warden : () -> {
			throw new IllegalStateException("Redis unreachable");
		};
		TaskOutbox outbox = new TaskOutbox(dataSource, "warden_task_outbox", client, Set.of(), RELAY_AFTER,
				sweepInterval);
		outboxes.add(outbox);
		return outbox;
	}

	/** The database the outboxes use. */
	DataSource dataSource() {
		return dataSource;
	}

	/** A new in-memory H2 database, named after {@code purpose}, that lives until the JVM ends. */
	static SimpleDriverDataSource h2(String purpose) {
		return new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:" + purpose + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
	}

	/**
	 * The queue {@code orders} of a new client whose writes inside transactions go through a new
	 * outbox on this database (its table created), swept every {@code sweepInterval}.
	 * @param outbox receives that outbox, for tests that look at it
	 */
	DelayedQueue<String> ordersQueue(WardenClients clients, RedisNode redis, Duration sweepInterval,
			Consumer<TaskOutbox> outbox) {
		AtomicReference<Warden> warden = new AtomicReference<>();
		TaskOutbox made = outbox(warden::get, sweepInterval);
		made.checkTable(connection -> true);
		outbox.accept(made);
		warden.set(clients.open(redis, builder -> builder.taskWriteDeferral(made)));
		return warden.get().getDelayedQueue("orders", String.class);
	}

	/** Like {@link #ordersQueue(WardenClients, RedisNode, Duration, Consumer)}, never swept. */
	DelayedQueue<String> ordersQueue(WardenClients clients, RedisNode redis) {
		return ordersQueue(clients, redis, Duration.ofHours(1), outbox -> {
		});
	}

	/** The rows in the table. */
	int rows() {
		Integer rows = jdbc.queryForObject("select count(*) from warden_task_outbox", Integer.class);
		return (rows != null) ? rows : -1;
	}

	/** Waits until every row is older than the relay delay, by the database's clock in UTC. */
	void awaitOlderThanTheRelayDelay() throws InterruptedException {
		LocalDateTime newest = jdbc.query("select max(created_at) from warden_task_outbox",
				(ResultSetExtractor<LocalDateTime>) rows -> (rows.next()) ? rows.getObject(1, LocalDateTime.class)
						: null);
		Eventually.await("every write older than the relay delay",
				() -> now().isAfter(newest.plus(RELAY_AFTER).plus(Duration.ofMillis(100))));
	}

	/** The database's clock in UTC, as the outbox reads it. */
	LocalDateTime now() {
		return jdbc.execute((ConnectionCallback<LocalDateTime>) new OutboxTable(OutboxTable.DEFAULT_NAME)::now);
	}

	/**
	 * The same database, each of whose sessions is in a time zone: as instances whose JVMs are in
	 * different time zones see it (PgJDBC sets a session's zone to its JVM's).
	 * @param zone a zone both H2 and PostgreSQL know
	 */
	static DataSource inTimeZone(DataSource dataSource, String zone) {
		return new DelegatingDataSource(dataSource) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				try (Statement statement = connection.createStatement()) {
					statement.execute("SET TIME ZONE '" + zone + "'");
				}
				return connection;
			}

		};
	}

	@Override
	public void close() {
		outboxes.forEach(TaskOutbox::close);
	}

}
