package dev.warden.task.transaction;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.warden.Eventually;
import dev.warden.Warden;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

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

	/** The rows in the table. */
	int rows() {
		Integer rows = jdbc.queryForObject("select count(*) from warden_task_outbox", Integer.class);
		return (rows != null) ? rows : -1;
	}

	/** Waits until every row is older than the relay delay, by the database's clock. */
	void awaitOlderThanTheRelayDelay() throws InterruptedException {
		Timestamp newest = jdbc.queryForObject("select max(created_at) from warden_task_outbox", Timestamp.class);
		Eventually.await("every write older than the relay delay", () -> jdbc
			.queryForObject("select localtimestamp(3)", Timestamp.class)
			.getTime() > newest.getTime() + RELAY_AFTER.toMillis() + 100);
	}

	@Override
	public void close() {
		outboxes.forEach(TaskOutbox::close);
	}

}
