package dev.warden.task.transaction;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import dev.warden.task.TaskWrite;
import org.jspecify.annotations.Nullable;

/**
 * The statements on the outbox table, in SQL that H2, PostgreSQL and MySQL all take. Times are the
 * database's own clock in UTC (each product says it its own way), whatever time zone a session has,
 * and compared only with each other: so neither the instances' clocks nor their time zones play a
 * part. They are read and bound as {@link LocalDateTime}, which JDBC converts with no time zone.
 * <p>
 * Rows written by Warden versions that stored the session's local time ({@code LOCALTIMESTAMP}) are
 * told apart by their transaction id, which lacks {@link #UTC_ROWS}: see {@link #legacy}.
 */
final class OutboxTable {

	/** The table's default name. */
	static final String DEFAULT_NAME = "warden_task_outbox";

	private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	private static final String COLUMNS = "tx_id, seq, queue_name, task_id, kind, payload, delay_millis, due_at_millis,"
			+ " replace_task";

	/** How the transaction ids of rows whose times are UTC begin. */
	static final String UTC_ROWS = "U";

	private final String name;

	/** The SQL for the database's clock in UTC, once the database is known. */
	private volatile @Nullable String utcNow;

	/**
	 * @param name the table's name, optionally with its schema
	 * @throws IllegalArgumentException when it is no plain SQL name
	 */
	OutboxTable(String name) {
		if (name == null || !NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("warden.delayed-task.transactions.table must be a table name, optionally"
					+ " with its schema (letters, digits and underscores): " + name);
		}
		this.name = name;
	}

	String name() {
		return name;
	}

	void insert(Connection connection, String txId, int seq, TaskWrite write) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + name + " (" + COLUMNS
				+ ", created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, " + utcNow(connection) + ")")) {
			insert.setString(1, txId);
			insert.setInt(2, seq);
			insert.setString(3, write.queue());
			insert.setString(4, write.taskId());
			insert.setString(5, write.kind().name());
			insert.setString(6, write.payload());
			insert.setLong(7, write.delayMillis());
			insert.setLong(8, write.dueAtMillis());
			insert.setBoolean(9, write.replace());
			insert.executeUpdate();
		}
	}

	/** The database's clock now, in UTC. */
	LocalDateTime now(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet now = statement.executeQuery("SELECT " + utcNow(connection))) {
			now.next();
			return now.getObject(1, LocalDateTime.class);
		}
	}

	/**
	 * The SQL expression of the database's clock in UTC, as a {@code TIMESTAMP} (no time zone) with
	 * milliseconds: the same for every session, whatever its time zone.
	 */
	String utcNow(Connection connection) throws SQLException {
		String sql = utcNow;
		if (sql == null) {
			sql = utcNow(connection.getMetaData().getDatabaseProductName());
			utcNow = sql;
		}
		return sql;
	}

	/**
	 * The SQL of the clock in UTC for a database product.
	 * @param product the product name the driver reports
	 */
	static String utcNow(String product) {
		String lower = product.toLowerCase(Locale.ROOT);
		if (lower.contains("h2")) {
			// H2 converts a TIMESTAMP WITH TIME ZONE to a TIMESTAMP in the session's time zone: count
			// from the epoch instead, which has none.
			return "DATEADD(MILLISECOND, CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT),"
					+ " TIMESTAMP '1970-01-01 00:00:00')";
		}
		if (lower.contains("mysql") || lower.contains("mariadb")) {
			return "UTC_TIMESTAMP(3)";
		}
		if (lower.contains("microsoft")) {
			return "SYSUTCDATETIME()";
		}
		if (lower.contains("oracle")) {
			return "SYS_EXTRACT_UTC(SYSTIMESTAMP)";
		}
		// PostgreSQL, and the SQL standard's way.
		return "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')";
	}

	/**
	 * Transactions with UTC times whose writes were committed before {@code before} and that no
	 * instance claims.
	 */
	List<String> unclaimed(Connection connection, LocalDateTime before, LocalDateTime now, int max)
			throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT DISTINCT tx_id FROM " + name
				+ " WHERE tx_id LIKE '" + UTC_ROWS + "%' AND created_at < ?"
				+ " AND (claimed_until IS NULL OR claimed_until < ?)")) {
			select.setMaxRows(max);
			select.setObject(1, before);
			select.setObject(2, now);
			List<String> ids = new ArrayList<>();
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					ids.add(rows.getString(1));
				}
			}
			return ids;
		}
	}

	/** Claims a transaction's writes until {@code until}, unless another instance claims them. */
	boolean claim(Connection connection, String txId, LocalDateTime now, LocalDateTime until) throws SQLException {
		try (PreparedStatement claim = connection.prepareStatement("UPDATE " + name
				+ " SET claimed_until = ? WHERE tx_id = ? AND (claimed_until IS NULL OR claimed_until < ?)")) {
			claim.setObject(1, until);
			claim.setString(2, txId);
			claim.setObject(3, now);
			return claim.executeUpdate() > 0;
		}
	}

	/**
	 * Transactions written by Warden versions that stored the session's local time, whose times
	 * therefore say nothing here: each with its claim as it stands, compared only for change.
	 */
	List<Legacy> legacy(Connection connection, int max) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT tx_id, MAX(claimed_until) FROM " + name
				+ " WHERE tx_id NOT LIKE '" + UTC_ROWS + "%' GROUP BY tx_id")) {
			select.setMaxRows(max);
			List<Legacy> found = new ArrayList<>();
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					found.add(new Legacy(rows.getString(1), rows.getObject(2, LocalDateTime.class)));
				}
			}
			return found;
		}
	}

	/**
	 * Claims a legacy transaction's writes, unless its claim changed since it was read.
	 * @param until the new claim: far enough ahead that an instance of an older version, whatever its
	 * time zone, sees it as taken
	 */
	boolean claimLegacy(Connection connection, Legacy legacy, LocalDateTime until) throws SQLException {
		String unchanged = (legacy.claimedUntil() != null) ? "claimed_until = ?" : "claimed_until IS NULL";
		try (PreparedStatement claim = connection.prepareStatement("UPDATE " + name
				+ " SET claimed_until = ? WHERE tx_id = ? AND " + unchanged)) {
			claim.setObject(1, until);
			claim.setString(2, legacy.txId());
			if (legacy.claimedUntil() != null) {
				claim.setObject(3, legacy.claimedUntil());
			}
			return claim.executeUpdate() > 0;
		}
	}

	/** A transaction of an older version, and its claim as read. */
	record Legacy(String txId, @Nullable LocalDateTime claimedUntil) {
	}

	/** A transaction's writes, in the order it made them. */
	List<TaskWrite> writes(Connection connection, String txId) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT " + COLUMNS + " FROM " + name
				+ " WHERE tx_id = ? ORDER BY seq")) {
			select.setString(1, txId);
			List<TaskWrite> writes = new ArrayList<>();
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					writes.add(new TaskWrite(TaskWrite.Kind.valueOf(rows.getString(5)), rows.getString(3),
							rows.getString(4), rows.getString(6), rows.getLong(7), rows.getLong(8), rows.getBoolean(9)));
				}
			}
			return writes;
		}
	}

	/** Deletes the writes of these transactions. */
	void delete(Connection connection, Collection<String> txIds) throws SQLException {
		StringBuilder sql = new StringBuilder("DELETE FROM ").append(name).append(" WHERE tx_id IN (");
		for (int i = 0; i < txIds.size(); i++) {
			sql.append((i == 0) ? "?" : ", ?");
		}
		try (PreparedStatement delete = connection.prepareStatement(sql.append(')').toString())) {
			int index = 1;
			for (String txId : txIds) {
				delete.setString(index++, txId);
			}
			delete.executeUpdate();
		}
	}

	/** Whether the table is there. */
	boolean exists(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.executeQuery("SELECT COUNT(*) FROM " + name + " WHERE 1 = 0").close();
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	/**
	 * The DDL resource for a database product, or {@code null} for one Warden ships none for.
	 * @param product the product name the driver reports
	 */
	static String schemaResource(String product) {
		String lower = product.toLowerCase(Locale.ROOT);
		if (lower.contains("h2")) {
			return "schema-h2.sql";
		}
		if (lower.contains("postgres")) {
			return "schema-postgresql.sql";
		}
		if (lower.contains("mysql") || lower.contains("mariadb")) {
			return "schema-mysql.sql";
		}
		return null;
	}

	/** Runs the shipped DDL for the connection's database, under this table's name. */
	void create(Connection connection) throws SQLException {
		String product = connection.getMetaData().getDatabaseProductName();
		String resource = schemaResource(product);
		if (resource == null) {
			throw new IllegalStateException("Warden ships no outbox table for " + product + "; create " + name
					+ " after schema-postgresql.sql in dev/warden/task/transaction/ of Warden's jar");
		}
		String ddl;
		try (InputStream in = OutboxTable.class.getResourceAsStream(resource)) {
			ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException | NullPointerException ex) {
			throw new IllegalStateException("Cannot read " + resource, ex);
		}
		ddl = ddl.replaceAll("(?m)^--.*$", "").replace(DEFAULT_NAME, name);
		try (Statement statement = connection.createStatement()) {
			for (String sql : ddl.split(";")) {
				if (!sql.isBlank()) {
					statement.execute(sql.trim());
				}
			}
		}
	}

}
