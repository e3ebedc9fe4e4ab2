package dev.warden.task.transaction;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.UUID;
import java.util.logging.Logger;

import javax.sql.DataSource;
import javax.sql.XAConnection;

import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.jta.JtaTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox under a {@link JtaTransactionManager} (Narayana), on H2 and real Redis: the JTA row of
 * the table of guarantees in {@code docs/transactions.md}. A global transaction in which the
 * outbox's {@code DataSource} takes part holds its rows; one in which it does not holds its writes
 * in memory to its end.
 */
class OutboxJtaTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private static TransactionManager transactionManager;

	private OutboxFixture outboxes;

	private JdbcTemplate jdbc;

	private DelayedQueue<String> queue;

	private TransactionTemplate transactions;

	@BeforeAll
	static void narayana() {
		// Narayana keeps its transaction log under the build's directory, not the working directory.
		String store = Path.of("target", "narayana-" + UUID.randomUUID()).toAbsolutePath().toString();
		System.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", store);
		System.setProperty("com.arjuna.ats.arjuna.objectstore.objectStoreDir", store);
		transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
	}

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		JdbcDataSource xa = new JdbcDataSource();
		xa.setURL("jdbc:h2:mem:jta-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		xa.setUser("sa");
		DataSource dataSource = new EnlistingDataSource(xa, transactionManager);
		jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("create table orders (id varchar(20) primary key)");
		outboxes = new OutboxFixture(dataSource);
		queue = outboxes.ordersQueue(clients, redis.node());
		JtaTransactionManager manager = new JtaTransactionManager(
				com.arjuna.ats.jta.UserTransaction.userTransaction(), transactionManager);
		manager.afterPropertiesSet();
		transactions = new TransactionTemplate(manager);
	}

	@AfterEach
	void close() {
		outboxes.close();
	}

	@Test
	void aGlobalTransactionWithTheDataSourceEnlistedHoldsTheRowInIt() {
		transactions.executeWithoutResult(status -> {
			jdbc.update("insert into orders (id) values ('o-1')");
			queue.schedule("o-1", "o-1", Duration.ofHours(1));
			assertThat(jdbc.queryForObject("select count(*) from warden_task_outbox", Integer.class))
				.as("the row, in the global transaction").isEqualTo(1);
			assertThat(queue.contains("o-1")).as("before the commit").isFalse();
		});
		transactions.executeWithoutResult(status -> {
			jdbc.update("insert into orders (id) values ('o-2')");
			queue.schedule("o-2", "o-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(queue.contains("o-1")).as("made at the commit").isTrue();
		assertThat(queue.contains("o-2")).as("rolled back").isFalse();
		assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class)).isEqualTo(1);
	}

	@Test
	void aGlobalTransactionWithoutTheDataSourceHoldsItsWritesInMemoryToItsEnd() {
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-1", "m-1", Duration.ofHours(1));
			assertThat(outboxes.rows()).as("no row").isZero();
			assertThat(queue.contains("m-1")).as("before the commit").isFalse();
		});
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-2", "m-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(queue.contains("m-1")).as("made at the commit").isTrue();
		assertThat(queue.contains("m-2")).as("rolled back").isFalse();
		assertThat(outboxes.rows()).isZero();
	}

	/**
	 * What a JTA connection pool does, at its smallest: inside a global transaction, a connection of
	 * an {@link XAConnection} enlisted in it (one per transaction, closed at its end); outside, a
	 * plain one.
	 */
	private static final class EnlistingDataSource implements DataSource {

		private final JdbcDataSource xa;

		private final TransactionManager transactions;

		EnlistingDataSource(JdbcDataSource xa, TransactionManager transactions) {
			this.xa = xa;
			this.transactions = transactions;
		}

		@Override
		public Connection getConnection() throws SQLException {
			try {
				Transaction transaction = transactions.getTransaction();
				if (transaction == null || transaction.getStatus() != Status.STATUS_ACTIVE) {
					return xa.getConnection();
				}
				XAConnection connection = xa.getXAConnection();
				Connection handle = connection.getConnection();
				transaction.enlistResource(connection.getXAResource());
				transaction.registerSynchronization(new Synchronization() {

					@Override
					public void beforeCompletion() {
					}

					@Override
					public void afterCompletion(int status) {
						try {
							connection.close();
						}
						catch (SQLException ex) {
							// The in-memory database goes on; nothing to release.
						}
					}

				});
				// As a pool's handle: closing it inside the transaction leaves the transaction's work to
				// the transaction manager (H2's own handle rolls back on close).
				return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
						new Class<?>[] { Connection.class },
						(proxy, method, arguments) -> method.getName().equals("close") ? null
								: invoke(method, handle, arguments));
			}
			catch (jakarta.transaction.SystemException | jakarta.transaction.RollbackException ex) {
				throw new SQLException(ex);
			}
		}

		private static Object invoke(Method method, Connection target, Object[] arguments) throws Throwable {
			try {
				return method.invoke(target, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public PrintWriter getLogWriter() {
			return null;
		}

		@Override
		public void setLogWriter(PrintWriter out) {
		}

		@Override
		public void setLoginTimeout(int seconds) {
		}

		@Override
		public int getLoginTimeout() {
			return 0;
		}

		@Override
		public Logger getParentLogger() throws SQLFeatureNotSupportedException {
			throw new SQLFeatureNotSupportedException();
		}

		@Override
		public <T> T unwrap(Class<T> type) throws SQLException {
			throw new SQLException("Not a wrapper");
		}

		@Override
		public boolean isWrapperFor(Class<?> type) {
			return false;
		}

	}

}
