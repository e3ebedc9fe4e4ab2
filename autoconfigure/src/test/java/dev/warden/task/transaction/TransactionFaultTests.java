package dev.warden.task.transaction;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.warden.Eventually;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.RedisURI;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults between a transaction's commit and Redis learning of it, with real processes: the
 * committing JVM killed by its PID right after the commit, and the Redis connection reset through
 * the proxy as the write is made. Each committed schedule still reaches Redis, made by the outbox
 * sweep of another instance or of the same one.
 */
class TransactionFaultTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private Server database;

	private String url;

	private SimpleDriverDataSource dataSource;

	private JdbcTemplate jdbc;

	private OutboxFixture outboxes;

	@BeforeEach
	void startDatabase() throws Exception {
		redis.node().call("FLUSHALL");
		// A database server of its own, so that it outlives a killed JVM that wrote to it.
		database = Server.createTcpServer("-tcpPort", Integer.toString(freePort()), "-ifNotExists").start();
		// A database of its own for each test, kept while the server runs.
		url = "jdbc:h2:tcp://localhost:" + database.getPort() + "/mem:faults-" + java.util.UUID.randomUUID()
				+ ";DB_CLOSE_DELAY=-1";
		dataSource = new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
		jdbc = new JdbcTemplate(dataSource);
		outboxes = new OutboxFixture(dataSource);
		jdbc.execute("create table if not exists orders (id varchar(20) primary key)");
		outboxes.outbox(null, Duration.ofHours(1)).checkTable(connection -> true);
	}

	@AfterEach
	void stopDatabase() {
		outboxes.close();
		database.stop();
	}

	@Test
	void aCommitWhoseProcessDiesBeforeRedisHearsOfItIsMadeByAnotherInstance() throws Exception {
		try (ForkedJvm producer = ForkedJvm.start("tx-producer", ForkedTransactionalProducer.class,
				redis.node().host(), Integer.toString(redis.node().port()), url, "o-1", "sa")) {
			producer.awaitLine("COMMITTED", Duration.ofSeconds(60));
			producer.kill();
		}
		assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class)).as("the order committed")
			.isEqualTo(1);
		assertThat(outboxes.rows()).as("the schedule, committed with it").isEqualTo(1);
		assertThat(redis.node().call("HEXISTS", "warden:task:{orders}:tasks", "o-1")).as("Redis never heard of it")
			.isEqualTo(0L);

		List<String> ran = new CopyOnWriteArrayList<>();
		AtomicReference<Warden> survivor = new AtomicReference<>();
		TaskOutbox outbox = outboxes.outbox(survivor::get, Duration.ofMillis(100));
		survivor.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(outbox)));
		survivor.get().getDelayedQueue("orders", String.class).consume(task -> ran.add(task.payload()));

		Eventually.await("the order's task run by the other instance", Duration.ofSeconds(30), () -> ran.size() == 1);
		assertThat(ran).containsExactly("o-1");
		Eventually.await("the outbox emptied", () -> outboxes.rows() == 0);
	}

	@Test
	void aWriteWhoseReplyIsLostIsMadeAgainHarmlessly() throws Exception {
		try (TcpProxy proxy = TcpProxy.start(redis.node())) {
			AtomicReference<Warden> warden = new AtomicReference<>();
			TaskOutbox outbox = outboxes.outbox(warden::get, Duration.ofMillis(100));
			warden.set(clients.open(clients.redisClient(RedisURI.builder().withHost(proxy.host()).withPort(proxy.port())),
					builder -> builder.taskWriteDeferral(outbox).commandTimeout(Duration.ofSeconds(1))));
			DelayedQueue<String> queue = warden.get().getDelayedQueue("orders", String.class);

			new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult(status -> {
				jdbc.update("insert into orders values ('o-2')");
				queue.schedule("o-2", "o-2", Duration.ofHours(1));
				// The write after the commit reaches Redis; its reply does not, as if the network broke.
				proxy.loseNextReply();
			});

			Eventually.await("the write made again by the sweep", () -> outboxes.rows() == 0);
			assertThat(redis.node().call("HLEN", "warden:task:{orders}:tasks")).as("one task, not two").isEqualTo(1L);
			assertThat(queue.dueAt("o-2")).isPresent();
		}
	}

	@Test
	void aWriteWhileTheConnectionIsResetAndSilentIsMadeOnceRedisAnswers() throws Exception {
		try (TcpProxy proxy = TcpProxy.start(redis.node())) {
			AtomicReference<Warden> warden = new AtomicReference<>();
			TaskOutbox outbox = outboxes.outbox(warden::get, Duration.ofMillis(100));
			warden.set(clients.open(clients.redisClient(RedisURI.builder().withHost(proxy.host()).withPort(proxy.port())),
					builder -> builder.taskWriteDeferral(outbox).commandTimeout(Duration.ofSeconds(1))));
			List<String> ran = new CopyOnWriteArrayList<>();
			DelayedQueue<String> queue = warden.get().getDelayedQueue("orders", String.class);

			new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult(status -> {
				jdbc.update("insert into orders values ('o-3')");
				queue.schedule("o-3", "o-3", Duration.ZERO);
				proxy.blackhole();
				proxy.resetAll();
			});
			assertThat(outboxes.rows()).as("kept: Redis did not answer at the commit").isEqualTo(1);
			proxy.heal();
			queue.consume(task -> ran.add(task.payload()));

			Eventually.await("the task run once Redis answers", Duration.ofSeconds(30), () -> ran.size() == 1);
			assertThat(ran).containsExactly("o-3");
		}
	}

	@Test
	void aTransactionThatDoesNotUseTheDatabaseIsFollowedToo() throws Exception {
		// A transaction manager of another resource (a message broker's, say): the writes wait in
		// memory for its end.
		AtomicReference<Warden> warden = new AtomicReference<>();
		TaskOutbox outbox = outboxes.outbox(warden::get, Duration.ofHours(1));
		warden.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(outbox)));
		DelayedQueue<String> queue = warden.get().getDelayedQueue("orders", String.class);
		TransactionTemplate transactions = new TransactionTemplate(new OtherResourceTransactionManager());

		transactions.executeWithoutResult(status -> {
			queue.schedule("m-1", "m-1", Duration.ofHours(1));
			assertThat(queue.contains("m-1")).as("before the commit").isFalse();
		});
		transactions.executeWithoutResult(status -> {
			queue.schedule("m-2", "m-2", Duration.ofHours(1));
			status.setRollbackOnly();
		});

		assertThat(queue.contains("m-1")).as("made at the commit").isTrue();
		assertThat(queue.contains("m-2")).as("rolled back").isFalse();
		assertThat(outboxes.rows()).as("no row: the table takes no part").isZero();
	}

	@Test
	void aBacklogLeftWhileRedisWasUnreachableDrainsInOneSweep() throws Exception {
		// An instance that cannot make any write (its client fails) commits many transactions.
		TaskOutbox cut = outboxes.outbox(null, Duration.ofHours(1));
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		DelayedQueue<String> unreachable = clients.open(redis.node(), builder -> builder.taskWriteDeferral(cut))
			.getDelayedQueue("orders", String.class);
		for (int i = 0; i < 250; i++) {
			String id = "b-" + i;
			transactions.executeWithoutResult(status -> unreachable.schedule(id, id, Duration.ofHours(1)));
		}
		assertThat(outboxes.rows()).isEqualTo(250);

		AtomicReference<Warden> survivor = new AtomicReference<>();
		TaskOutbox sweeping = outboxes.outbox(survivor::get, Duration.ofHours(1));
		survivor.set(clients.open(redis.node(), builder -> builder.taskWriteDeferral(sweeping)));
		// Once every row is older than the relay delay by the database's clock, one sweep makes them all.
		outboxes.awaitOlderThanTheRelayDelay();

		assertThat(sweeping.sweepAll()).as("transactions made in one sweep").isEqualTo(250);
		assertThat(outboxes.rows()).as("all of them, in one sweep of several batches").isZero();
		assertThat(redis.node().call("HLEN", "warden:task:{orders}:tasks")).isEqualTo(250L);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
