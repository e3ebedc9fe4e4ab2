package dev.warden.task.transaction;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.warden.Warden;
import dev.warden.task.TaskWrite;
import dev.warden.task.TaskWriteDeferral;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the task writes of a Spring-managed transaction follow it, through an outbox table in the
 * application's database. A schedule, cancel or reschedule made inside a transaction is a row
 * written in that transaction; when it commits, this instance makes the writes in Redis and deletes
 * the rows; when it rolls back, the rows are gone with it. When the process dies after the commit,
 * or Redis cannot be reached then, the rows stay, and any instance makes their writes once they are
 * older than the relay delay. So a committed write reaches Redis at least once, and a rolled-back one
 * never does. The writes follow the transaction's savepoints too: those made after a savepoint that
 * is rolled back (a {@code PROPAGATION_NESTED} block that failed) are dropped with its rows.
 * <p>
 * A transaction in which the {@link DataSource} takes no part (that of another resource's
 * transaction manager, a message broker's say) cannot hold the rows: its writes are held in memory
 * and made when it commits, never before and never after a rollback; only if Redis cannot be reached
 * then are they stored in the table for the sweep. A process that dies between such a commit and
 * Redis loses them.
 * <p>
 * A write's delay counts from when it reaches Redis: at the commit, or when an instance relays it.
 * Outside a transaction, and for the queues it is told to leave alone, writes are made at once.
 */
public final class TaskOutbox implements TaskWriteDeferral, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(TaskOutbox.class);

	/** How many transactions one sweep relays, or one statement deletes, at most. */
	private static final int BATCH = 100;

	/** How many batches one sweep makes at most. */
	private static final int MAX_SWEEP_ROUNDS = 1_000;

	/** How long the rows of a transaction whose writes were made wait to be deleted with others. */
	private static final long DELETE_DELAY_MILLIS = 20;

	private final DataSource dataSource;

	private final OutboxTable table;

	private final Supplier<Warden> warden;

	private final Set<String> immediateQueues;

	private final Duration relayAfter;

	private final ScheduledExecutorService relay;

	/** Transactions whose writes this instance made, whose rows are still to delete. */
	private final Queue<String> relayed = new ArrayDeque<>();

	private boolean deleting;

	/**
	 * Names this instance's transactions, with a counter: unique across instances, and cheap; marked
	 * as holding UTC times.
	 */
	private final String instanceId = OutboxTable.UTC_ROWS + UUID.randomUUID().toString().substring(0, 18);

	private final AtomicLong transactions = new AtomicLong();

	/** Whether the writes of a transaction the table cannot follow were said to be held in memory. */
	private final AtomicBoolean heldInMemoryLogged = new AtomicBoolean();

	/**
	 * Transactions of older versions seen in the table, with their claim as seen, and when this
	 * instance first saw them so (its monotonic clock): their times are not UTC, so they are made
	 * once seen unchanged for long enough. Touched by one sweep at a time.
	 */
	private Map<OutboxTable.Legacy, Long> legacySeen = new HashMap<>();

	private final AtomicLong sweeps = new AtomicLong();

	/**
	 * Starts sweeping the table for writes no instance made.
	 * @param dataSource the application's database, which holds the table
	 * @param tableName the table, optionally with its schema
	 * @param warden the client that makes the writes, looked up at the first one
	 * @param immediateQueues queues whose writes are made at once, even inside a transaction
	 * @param relayAfter how long after its transaction began a committed write waits for its own
	 * instance before any instance makes it
	 * @param sweepInterval how often the table is swept
	 */
	public TaskOutbox(DataSource dataSource, String tableName, Supplier<Warden> warden, Set<String> immediateQueues,
			Duration relayAfter, Duration sweepInterval) {
		this.dataSource = dataSource;
		this.table = new OutboxTable(tableName);
		this.warden = warden;
		this.immediateQueues = Set.copyOf(immediateQueues);
		this.relayAfter = relayAfter;
		this.relay = Executors.newSingleThreadScheduledExecutor(runnable -> {
			Thread thread = new Thread(runnable, "warden-outbox");
			thread.setDaemon(true);
			return thread;
		});
		long interval = Math.max(1, sweepInterval.toMillis());
		relay.scheduleWithFixedDelay(this::sweepQuietly, interval, interval, TimeUnit.MILLISECONDS);
	}

	/**
	 * Checks that the table is there, creating it first when asked to.
	 * @param create whether to run Warden's DDL (idempotent) on the database of that connection
	 * @throws IllegalStateException naming the table and what to do, when it is missing
	 */
	public void checkTable(Predicate<Connection> create) {
		try (Connection connection = dataSource.getConnection()) {
			if (create.test(connection)) {
				table.create(connection);
			}
			if (!table.exists(connection)) {
				String product = connection.getMetaData().getDatabaseProductName();
				String resource = OutboxTable.schemaResource(product);
				throw new IllegalStateException("Warden's outbox table '" + table.name() + "' is missing in "
						+ product + ": task writes made inside transactions are stored there until they commit. Create"
						+ " it with " + ((resource != null) ? "dev/warden/task/transaction/" + resource + " in Warden's jar"
								: "the DDL in dev/warden/task/transaction/ of Warden's jar")
						+ ", set warden.delayed-task.transactions.initialize-schema=always, or set"
						+ " warden.delayed-task.transactions.enabled=false to write tasks at once inside transactions");
			}
			logger.info("Task writes made inside transactions follow them through the outbox table '{}' ({}); an"
					+ " instance makes those that their own did not within {}", table.name(),
					connection.getMetaData().getDatabaseProductName(), relayAfter);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot check Warden's outbox table '" + table.name() + "': "
					+ ex.getMessage(), ex);
		}
	}

	@Override
	public boolean defers(String queue) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| !TransactionSynchronizationManager.isSynchronizationActive() || immediateQueues.contains(queue)) {
			return false;
		}
		// A write from a callback after this transaction's end (an after-commit listener of a
		// transaction that wrote through the outbox): the transaction is over, so it is made at once
		// rather than joined to writes that are already made and whose rows go.
		Writes writes = (Writes) TransactionSynchronizationManager.getResource(this);
		return writes == null || !writes.ended;
	}

	@Override
	public void defer(TaskWrite write) {
		Writes writes = (Writes) TransactionSynchronizationManager.getResource(this);
		if (writes == null) {
			writes = new Writes(instanceId + Long.toHexString(transactions.incrementAndGet()), databaseTakesPart());
			TransactionSynchronizationManager.bindResource(this, writes);
			TransactionSynchronizationManager.registerSynchronization(writes);
			if (!writes.joined && heldInMemoryLogged.compareAndSet(false, true)) {
				logger.warn("Task writes are made inside a transaction in which the outbox's DataSource takes no part"
						+ " (its transaction manager is another resource's): they are held in memory until it commits,"
						+ " never made before nor after a rollback, but lost if the process dies between its commit"
						+ " and Redis. Writes in transactions of the DataSource's own transaction manager are kept in"
						+ " the outbox table '{}' and survive that.", table.name());
			}
		}
		if (!writes.joined) {
			writes.list.add(write);
			return;
		}
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			table.insert(connection, writes.txId, writes.list.size(), write);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot store the " + write.kind().name().toLowerCase(Locale.ROOT)
					+ " of task '" + write.taskId() + "' of queue '" + write.queue() + "' in Warden's outbox table '"
					+ table.name() + "': " + ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
		writes.list.add(write);
	}

	/**
	 * Whether the current transaction is one of the {@link DataSource}'s: a row written now commits
	 * or rolls back with it. A connection bound to the transaction but in auto-commit (fetched by
	 * JDBC code inside another resource's transaction) commits each row on its own, so is not one.
	 */
	private boolean databaseTakesPart() {
		if (!TransactionSynchronizationManager.hasResource(dataSource)) {
			return false;
		}
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			return !connection.getAutoCommit();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot tell whether Warden's outbox table '" + table.name()
					+ "' takes part in the transaction: " + ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

	/** Makes the writes of a committed transaction, and has its rows deleted once they are made. */
	private void commit(Writes writes) {
		try {
			warden.get().applyTaskWrites(writes.list);
		}
		catch (RuntimeException ex) {
			logger.warn("The {} task write(s) of a committed transaction could not reach Redis ({}); they are kept in"
					+ " the outbox table '{}', and an instance makes them once they are {} old", writes.list.size(),
					ex.getMessage(), table.name(), relayAfter);
			return;
		}
		deleteLater(writes.txId);
	}

	/**
	 * Makes writes held in memory for a committed transaction that the table could not follow; when
	 * Redis cannot take them, stores them in the table, in a transaction of their own, for the sweep.
	 */
	private void commitHeld(String txId, List<TaskWrite> writes) {
		try {
			warden.get().applyTaskWrites(writes);
			return;
		}
		catch (RuntimeException ex) {
			logger.warn("The {} task write(s) of a committed transaction could not reach Redis ({}); they are stored"
					+ " in the outbox table '{}', and an instance makes them once they are {} old", writes.size(),
					ex.getMessage(), table.name(), relayAfter);
		}
		try (Connection connection = dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(false);
			try {
				for (int seq = 0; seq < writes.size(); seq++) {
					table.insert(connection, txId, seq, writes.get(seq));
				}
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.error("Lost the {} task write(s) of a committed transaction: neither Redis nor the outbox table '{}'"
					+ " took them ({}): {}", writes.size(), table.name(), ex.getMessage(), writes);
		}
	}

	private void deleteLater(String txId) {
		synchronized (relayed) {
			relayed.add(txId);
			if (deleting) {
				return;
			}
			deleting = true;
		}
		// A little later, so that the rows of the transactions that commit meanwhile go in one
		// statement: the delete costs the database a fraction of a statement per transaction.
		try {
			relay.schedule(this::deleteRelayed, DELETE_DELAY_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the rows stay for the sweep of an instance that keeps running, which makes the
			// writes again (harmless for a schedule of a pending task, or a cancel).
			logger.debug("Outbox closed; {} transaction(s) left for the sweep", relayed.size());
		}
	}

	/** Deletes the rows of the transactions whose writes were made, a batch per statement. */
	private void deleteRelayed() {
		while (true) {
			List<String> batch = new ArrayList<>();
			synchronized (relayed) {
				while (batch.size() < BATCH && !relayed.isEmpty()) {
					batch.add(relayed.poll());
				}
				if (batch.isEmpty()) {
					deleting = false;
					return;
				}
			}
			try (Connection connection = dataSource.getConnection()) {
				connection.setAutoCommit(true);
				table.delete(connection, batch);
			}
			catch (SQLException | RuntimeException ex) {
				// Left for the sweep: it makes them again, which a schedule by id survives.
				logger.warn("Could not delete {} relayed transaction(s) from the outbox table '{}': {}", batch.size(),
						table.name(), ex.getMessage());
			}
		}
	}

	private void sweepQuietly() {
		sweepAll();
	}

	/** How many sweeps have ended, whatever they found. */
	long sweeps() {
		return sweeps.get();
	}

	/**
	 * Sweeps until no committed write is left to make, or a bound: one pass of the outbox thread.
	 * @return of how many transactions it made the writes
	 */
	int sweepAll() {
		int made = 0;
		try {
			// A backlog (Redis was unreachable for a while) drains batch after batch, bounded per sweep.
			for (int round = 0; round < MAX_SWEEP_ROUNDS; round++) {
				Sweep sweep = sweep();
				made += sweep.made();
				if (sweep.seen() < BATCH) {
					break;
				}
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not sweep the outbox table '{}': {}", table.name(), ex.getMessage());
		}
		try {
			made += sweepLegacy();
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not sweep the outbox table '{}' for rows of older versions: {}", table.name(),
					ex.getMessage());
		}
		sweeps.incrementAndGet();
		if (made > 0) {
			logger.info("Made the task writes of {} committed transaction(s) that their instance did not make within"
					+ " {} (it stopped, or could not reach Redis)", made, relayAfter);
		}
		return made;
	}

	/**
	 * Makes the writes of committed transactions that their instance did not make in time (it died,
	 * or lost Redis), and deletes them: one batch.
	 * @return how many transactions it looked at, and of how many it made the writes
	 * @throws SQLException when the database fails
	 */
	Sweep sweep() throws SQLException {
		int made = 0;
		try (Connection connection = dataSource.getConnection()) {
			connection.setAutoCommit(true);
			LocalDateTime now = table.now(connection);
			LocalDateTime before = now.minus(relayAfter);
			LocalDateTime until = now.plus(claimFor());
			List<String> unclaimed = table.unclaimed(connection, before, now, BATCH);
			for (String txId : unclaimed) {
				synchronized (relayed) {
					if (relayed.contains(txId)) {
						continue;
					}
				}
				if (!table.claim(connection, txId, now, until)) {
					continue;
				}
				warden.get().applyTaskWrites(table.writes(connection, txId));
				table.delete(connection, List.of(txId));
				made++;
			}
			return new Sweep(unclaimed.size(), made);
		}
	}

	/**
	 * Makes the writes of transactions stored by older versions, whose times are the local time of
	 * the session that wrote them, in a time zone not known here: each once this instance has seen it
	 * unchanged for the relay delay (or, if claimed, for as long as a claim lasts), so never sooner
	 * than its own instance had to make it; claimed far enough ahead that an instance of an older
	 * version sees the claim whatever its time zone.
	 * @return of how many transactions it made the writes
	 * @throws SQLException when the database fails
	 */
	synchronized int sweepLegacy() throws SQLException {
		int made = 0;
		try (Connection connection = dataSource.getConnection()) {
			connection.setAutoCommit(true);
			List<OutboxTable.Legacy> found = table.legacy(connection, BATCH);
			Map<OutboxTable.Legacy, Long> seen = new HashMap<>();
			long nowNanos = System.nanoTime();
			for (OutboxTable.Legacy legacy : found) {
				long since = legacySeen.getOrDefault(legacy, nowNanos);
				seen.put(legacy, since);
				Duration wait = (legacy.claimedUntil() != null) ? claimFor() : relayAfter;
				if (nowNanos - since < wait.toNanos()) {
					continue;
				}
				LocalDateTime until = table.now(connection).plus(claimFor()).plusDays(1);
				if (!table.claimLegacy(connection, legacy, until)) {
					continue;
				}
				warden.get().applyTaskWrites(table.writes(connection, legacy.txId()));
				table.delete(connection, List.of(legacy.txId()));
				seen.remove(legacy);
				made++;
			}
			legacySeen = seen;
		}
		return made;
	}

	private Duration claimFor() {
		return (relayAfter.toMillis() > 10_000) ? relayAfter : Duration.ofSeconds(10);
	}

	/** What one batch of a sweep did. */
	record Sweep(int seen, int made) {
	}

	@Override
	public void close() {
		relay.shutdown();
		try {
			relay.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The writes of one transaction, and what becomes of them when it ends. */
	private final class Writes implements TransactionSynchronization {

		private final String txId;

		private final boolean joined;

		/** Whether the transaction has ended: its writes are being made, or dropped. */
		private volatile boolean ended;

		private final List<TaskWrite> list = new ArrayList<>();

		/** The savepoints taken since this transaction's first write, oldest first. */
		private final List<Object> savepoints = new ArrayList<>();

		/** How many writes there were when each of them was taken. */
		private final List<Integer> marks = new ArrayList<>();

		/** How many writes of the list were made, for a transaction held in memory. */
		private int made;

		Writes(String txId, boolean joined) {
			this.txId = txId;
			this.joined = joined;
		}

		@Override
		public void savepoint(Object savepoint) {
			savepoints.add(savepoint);
			marks.add(list.size());
		}

		@Override
		public void savepointRollback(Object savepoint) {
			// The writes made since the savepoint go, as its rows do (in a joined transaction the
			// database drops them); so do the savepoints taken since, released or not. One taken
			// before the first write (so before this was registered) drops every write.
			int index = savepoints.size() - 1;
			while (index >= 0 && savepoints.get(index) != savepoint) {
				index--;
			}
			int keep = (index >= 0) ? marks.get(index) : 0;
			list.subList(keep, list.size()).clear();
			savepoints.subList(index + 1, savepoints.size()).clear();
			marks.subList(index + 1, marks.size()).clear();
		}

		@Override
		public void suspend() {
			TransactionSynchronizationManager.unbindResource(TaskOutbox.this);
		}

		@Override
		public void resume() {
			TransactionSynchronizationManager.bindResource(TaskOutbox.this, this);
		}

		@Override
		public void afterCommit() {
			ended = true;
			if (joined) {
				commit(this);
			}
			else {
				commitHeld();
			}
		}

		@Override
		public void afterCompletion(int status) {
			ended = true;
			TransactionSynchronizationManager.unbindResourceIfPossible(TaskOutbox.this);
			// Held writes added after the commit (by an after-commit callback) are made now; those of
			// a transaction that rolled back, or whose end is unknown, are dropped.
			if (!joined && status == STATUS_COMMITTED) {
				commitHeld();
			}
			else if (!joined && status == STATUS_UNKNOWN && made < list.size()) {
				logger.warn("Dropped {} task write(s) of a transaction whose outcome is unknown", list.size() - made);
			}
		}

		private void commitHeld() {
			if (made < list.size()) {
				// Writes added after the first were made have rows of their own, if any, under an id
				// of their own.
				String id = (made == 0) ? txId : instanceId + Long.toHexString(transactions.incrementAndGet());
				List<TaskWrite> writes = List.copyOf(list.subList(made, list.size()));
				made = list.size();
				TaskOutbox.this.commitHeld(id, writes);
			}
		}

	}

}
