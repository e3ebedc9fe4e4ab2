package dev.warden.task.transaction;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import dev.warden.task.TaskWrite;

/**
 * The statements on the outbox table, in SQL that H2, PostgreSQL and MySQL all take. Times are the
 * database's own ({@code LOCALTIMESTAMP}), compared only with each other.
 */
final class OutboxTable {

	/** The table's default name. */
	static final String DEFAULT_NAME = "warden_task_outbox";

	private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	private static final String COLUMNS = "tx_id, seq, queue_name, task_id, kind, payload, delay_millis, due_at_millis,"
			+ " replace_task";

	private final String name;

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
				+ ", created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, LOCALTIMESTAMP(3))")) {
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

	/** The database's clock now. */
	Timestamp now(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet now = statement.executeQuery("SELECT LOCALTIMESTAMP(3)")) {
			now.next();
			return now.getTimestamp(1);
		}
	}

	/** Transactions whose writes were committed before {@code before} and that no instance claims. */
	List<String> unclaimed(Connection connection, Timestamp before, Timestamp now, int max) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT DISTINCT tx_id FROM " + name
				+ " WHERE created_at < ? AND (claimed_until IS NULL OR claimed_until < ?)")) {
			select.setMaxRows(max);
			select.setTimestamp(1, before);
			select.setTimestamp(2, now);
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
	boolean claim(Connection connection, String txId, Timestamp now, Timestamp until) throws SQLException {
		try (PreparedStatement claim = connection.prepareStatement("UPDATE " + name
				+ " SET claimed_until = ? WHERE tx_id = ? AND (claimed_until IS NULL OR claimed_until < ?)")) {
			claim.setTimestamp(1, until);
			claim.setString(2, txId);
			claim.setTimestamp(3, now);
			return claim.executeUpdate() > 0;
		}
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
