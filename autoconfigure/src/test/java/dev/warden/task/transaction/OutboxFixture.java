package dev.warden.task.transaction;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.warden.Eventually;
import dev.warden.Warden;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
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
