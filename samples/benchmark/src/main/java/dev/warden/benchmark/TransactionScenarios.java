package dev.warden.benchmark;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import dev.warden.Warden;
import dev.warden.benchmark.Report.Metric;
import dev.warden.task.DelayedQueue;
import dev.warden.task.ScheduleOption;
import dev.warden.task.transaction.TaskOutbox;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What following the transaction costs a schedule: transactions that each insert an order into H2
 * (in memory, behind a Hikari pool) and schedule its timeout, once through the outbox (the
 * schedule waits for the commit: a row in the transaction, the write after it) and once with
 * {@link ScheduleOption#IMMEDIATE} (written to Redis inside the transaction, as without Warden's
 * transaction support), in slices that alternate on one client. The columns are
 * {@value #TRANSACTIONAL} and {@value #IMMEDIATE}.
 */
final class TransactionScenarios {

	static final String TRANSACTIONAL = "follows the transaction";

	static final String IMMEDIATE = "immediate";

	private static final int SLICES = 8;

	private final RedisNode redis;

	private final long runNanos;

	TransactionScenarios(RedisNode redis, long runMillis) {
		this.redis = redis;
		this.runNanos = TimeUnit.MILLISECONDS.toNanos(runMillis);
	}

	void schedules(Report report) throws Exception {
		RedisClient client = RedisClient.create(redis.uri());
		try (HikariDataSource dataSource = new HikariDataSource()) {
			dataSource.setJdbcUrl("jdbc:h2:mem:benchmark-outbox-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
			dataSource.setUsername("sa");
			dataSource.setMaximumPoolSize(16);
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("create table if not exists orders (id bigint primary key, sku varchar(20))");
			AtomicReference<Warden> holder = new AtomicReference<>();
			try (TaskOutbox outbox = new TaskOutbox(dataSource, "warden_task_outbox", holder::get, Set.of(),
					Duration.ofSeconds(10), Duration.ofSeconds(1));
					Warden warden = Warden.builder(client).taskWriteDeferral(outbox).build()) {
				holder.set(warden);
				outbox.checkTable(connection -> true);
				DelayedQueue<Long> timeouts = warden.getDelayedQueue("bench-order-timeout", Long.class);
				TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
				AtomicLong ids = new AtomicLong();
				Call transactional = () -> transactions.executeWithoutResult(status -> {
					long id = ids.incrementAndGet();
					jdbc.update("insert into orders values (?, 'apple')", id);
					timeouts.schedule("order-" + id, id, Duration.ofMinutes(30));
				});
				Call immediate = () -> transactions.executeWithoutResult(status -> {
					long id = ids.incrementAndGet();
					jdbc.update("insert into orders values (?, 'apple')", id);
					timeouts.schedule("order-" + id, id, Duration.ofMinutes(30), ScheduleOption.IMMEDIATE);
				});
				for (int threads : new int[] { 1, 8 }) {
					alternate(report, "transaction with a schedule, " + threads + (threads == 1 ? " thread" : " threads"),
							threads, transactional, immediate);
				}
				long pending = timeouts.size();
				if (pending != ids.get()) {
					throw new IllegalStateException(ids.get() + " transactions committed, but " + pending
							+ " tasks are pending");
				}
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			redis.call("FLUSHALL");
		}
	}

	private void alternate(Report report, String scenario, int threads, Call transactional, Call immediate)
			throws Exception {
		Alternation.measure(report, new Metric(scenario + ": transactions/s", true), threads, runNanos, SLICES,
				TRANSACTIONAL, thread -> transactional.run(), IMMEDIATE, thread -> immediate.run());
	}

	/** One transaction. */
	@FunctionalInterface
	private interface Call {

		void run();

	}

}
