package dev.warden.task.transaction;

import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import io.r2dbc.h2.CloseableConnectionFactory;
import io.r2dbc.h2.H2ConnectionFactory;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The rows of the table of guarantees in {@code docs/transactions.md} that need JPA or R2DBC,
 * on H2 and real Redis: a {@link JpaTransactionManager} over the outbox's {@code DataSource} takes
 * the rows into its transaction, and a reactive R2DBC transaction is not followed at all.
 */
class OutboxJpaAndR2dbcTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final String database = "jpa-r2dbc-" + UUID.randomUUID();

	private DataSource dataSource;

	private OutboxFixture outboxes;

	private DelayedQueue<String> queue;

	private LocalContainerEntityManagerFactoryBean entityManagers;

	@BeforeEach
	void open() {
		redis.node().call("FLUSHALL");
		dataSource = new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1",
				"sa", "");
		new JdbcTemplate(dataSource).execute("create table orders (id varchar(20) primary key)");
		outboxes = new OutboxFixture(dataSource);
		queue = outboxes.ordersQueue(clients, redis.node());
	}

	@AfterEach
	void close() {
		if (entityManagers != null) {
			entityManagers.destroy();
		}
		outboxes.close();
	}

	@Test
	void jpaOverTheSameDataSource_aRowInTheTransactionMadeAtItsCommitAndNothingAfterARollback() {
		entityManagers = new LocalContainerEntityManagerFactoryBean();
		entityManagers.setDataSource(dataSource);
		entityManagers.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
		entityManagers.setPackagesToScan(OutboxJpaAndR2dbcTests.class.getPackageName() + ".noentities");
		entityManagers.afterPropertiesSet();
		EntityManagerFactory factory = entityManagers.getObject();
		EntityManager entityManager = SharedEntityManagerCreator.createSharedEntityManager(factory);
		// Given only the factory, the manager finds its DataSource, as Spring Boot's does.
		TransactionTemplate transactions = new TransactionTemplate(new JpaTransactionManager(factory));
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);

		transactions.executeWithoutResult(status -> {
			entityManager.createNativeQuery("insert into orders values ('j-1')").executeUpdate();
			queue.schedule("j-1", "j-1", Duration.ofHours(1));
			assertThat(jdbc.queryForObject("select count(*) from warden_task_outbox", Integer.class))
				.as("the row, in the JPA transaction").isEqualTo(1);
			assertThat(queue.contains("j-1")).as("before the commit").isFalse();
		});
		transactions.executeWithoutResult(status -> {
			entityManager.createNativeQuery("insert into orders values ('j-2')").executeUpdate();
			queue.schedule("j-2", "j-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(queue.contains("j-1")).isTrue();
		assertThat(queue.contains("j-2")).isFalse();
		assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class)).isEqualTo(1);
	}

	@Test
	void reactiveR2dbc_notFollowed_madeAtOnceEvenIfItRollsBack() {
		CloseableConnectionFactory connections = H2ConnectionFactory.inMemory(database);
		try {
			TransactionalOperator transactional = TransactionalOperator
				.create(new R2dbcTransactionManager(connections));

			assertThatIllegalStateException().isThrownBy(() -> transactional
				.transactional(Mono.fromCallable(() -> queue.schedule("x-1", "x-1", Duration.ofHours(1)))
					.then(Mono.error(new IllegalStateException("reactive transaction failed"))))
				.block(Duration.ofSeconds(30)));
		}
		finally {
			connections.close();
		}

		assertThat(queue.contains("x-1")).as("made at once: no thread-bound transaction to follow").isTrue();
		assertThat(outboxes.rows()).isZero();
	}

}
