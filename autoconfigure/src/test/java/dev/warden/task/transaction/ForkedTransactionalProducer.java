package dev.warden.task.transaction;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Warden;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A service in a process of its own that creates an order and schedules its timeout in one
 * transaction, and stops right after the commit, before its own outbox makes the write: it prints
 * {@code COMMITTED} and waits there until it is killed.
 * <p>
 * Arguments: Redis host, port, the JDBC URL of the shared database, the order id, the database user.
 */
public final class ForkedTransactionalProducer {

	private ForkedTransactionalProducer() {
	}

	public static void main(String[] args) throws Exception {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(args[2], args[4], "");
		AtomicReference<Warden> warden = new AtomicReference<>();
		// No sweep of its own: the surviving instance must do it.
		TaskOutbox outbox = new TaskOutbox(dataSource, "warden_task_outbox", warden::get, Set.of(), Duration.ofSeconds(1),
				Duration.ofHours(1));
		RedisClient client = RedisClient.create(RedisURI.create(args[0], Integer.parseInt(args[1])));
		warden.set(Warden.builder(client).taskWriteDeferral(outbox).build());
		String orderId = args[3];
		new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult(status -> {
			new JdbcTemplate(dataSource).update("insert into orders values (?)", orderId);
			warden.get().getDelayedQueue("orders", String.class).schedule(orderId, orderId, Duration.ZERO);
			TransactionSynchronizationManager.registerSynchronization(new StopAfterCommit());
		});
	}

	/** Runs before the outbox's own synchronization, and never returns. */
	private static final class StopAfterCommit implements TransactionSynchronization {

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

		@Override
		public void afterCommit() {
			System.out.println("COMMITTED");
			try {
				BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
				while (input.readLine() != null) {
					// Until the test kills this process.
				}
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
			Runtime.getRuntime().halt(1);
		}

	}

}
