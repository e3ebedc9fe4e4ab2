package dev.warden;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Redis ACL rule {@code docs/production.md} gives for Warden's user is enough: locks, fencing tokens,
 * semaphores, a delayed queue and the operator's views (ping, queue scan, counts) work for a user
 * with only those permissions.
 */
class RedisAclTests {

	/** That page's rule, word for word after the user name and password. */
	static final String RULE = "on ~* &* +@connection +@scripting +@pubsub +@string +@hash +@list +@sortedset "
			+ "+@keyspace +time +wait";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@Test
	void aUserWithTheReadmesRuleCanUseEveryKind() throws Exception {
		redis.node().call(("ACL SETUSER warden >secret " + RULE).split(" "));
		Warden warden = clients.open(clients.redisClient(redis.node(), "warden", "secret"));
		LockOwner owner = warden.newOwner();
		DistributedReentrantLock lock = warden.getLock("acl-lock");
		assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).isPresent();
		lock.unlock(owner);
		assertThat(warden.getFairLock("acl-fair").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		warden.getFairLock("acl-fair").unlock(owner);
		assertThat(warden.getSemaphore("acl-sem").trySetPermits(1)).isTrue();
		assertThat(warden.getSemaphore("acl-sem").tryAcquire()).isTrue();

		DelayedQueue<String> queue = warden.getDelayedQueue("acl-queue", String.class);
		CountDownLatch ran = new CountDownLatch(1);
		queue.consume(delivery -> ran.countDown());
		queue.schedule("t", "x", Duration.ZERO);
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		// What the health indicator and the warden endpoint use.
		queue.schedule("later", "x", Duration.ofHours(1));
		assertThat(warden.ping()).isPositive();
		assertThat(warden.queueNames(10)).contains("acl-queue");
		assertThat(queue.stats().pending()).isEqualTo(1);
	}

	/**
	 * That page's rule with the keys narrowed to Warden's own under one prefix: the names an
	 * application locks (here {@code warden:lock:*}, the annotations' default prefix), the keys
	 * derived from them, the fencing counters, the queues and the fleet registry.
	 */
	static final String KEYS_RULE = "on ~warden:lock:* ~{warden:lock:* ~redisson_lock_queue:{warden:lock:* "
			+ "~redisson_lock_timeout:{warden:lock:* ~warden_fencing:* ~warden:task:* ~warden:rate:* ~warden:{fleet}:* "
			+ "resetchannels &redisson_* &warden* "
			+ "&__sentinel__:hello +@connection +@scripting +@pubsub +@string +@hash +@list +@sortedset +@keyspace "
			+ "+time +wait";

	@Test
	void aUserRestrictedToWardensKeysCanUseEveryKindThereAndNothingElse() throws Exception {
		redis.node().call(("ACL SETUSER narrow >secret " + KEYS_RULE).split(" "));
		Warden warden = clients.open(clients.redisClient(redis.node(), "narrow", "secret"));
		LockOwner owner = warden.newOwner();
		for (DistributedReentrantLock lock : new DistributedReentrantLock[] { warden.getLock("warden:lock:a"),
				warden.getFairLock("warden:lock:fair"), warden.getReadWriteLock("warden:lock:rw").writeLock(),
				warden.getReadWriteLock("warden:lock:rw2").readLock() }) {
			assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).as(lock.getName()).isPresent();
			lock.unlock(owner);
		}
		assertThat(warden.getSemaphore("warden:lock:sem").trySetPermits(1)).isTrue();
		assertThat(warden.getSemaphore("warden:lock:sem").tryAcquire()).isTrue();
		assertThat(warden.getPermitExpirableSemaphore("warden:lock:permits").trySetPermits(1)).isTrue();
		warden.getPermitExpirableSemaphore("warden:lock:permits")
			.release(warden.getPermitExpirableSemaphore("warden:lock:permits").tryAcquire(0, 10, TimeUnit.SECONDS)
				.orElseThrow());
		assertThat(warden.getCountDownLatch("warden:lock:latch").trySetCount(1)).isTrue();
		DelayedQueue<String> queue = warden.getDelayedQueue("jobs", String.class);
		CountDownLatch ran = new CountDownLatch(1);
		queue.consume(delivery -> ran.countDown());
		queue.schedule("t", "x", Duration.ZERO);
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(warden.fleet()).as("announced").anyMatch(member -> member.clientId().equals(warden.getClientId()));

		assertThatExceptionOfType(WardenException.class)
			.isThrownBy(() -> warden.getLock("elsewhere").tryLock(owner, 0, TimeUnit.SECONDS))
			.withMessageContaining("NOPERM");
	}

	@Test
	void theApplicationsUsernameAndPasswordAreHonoured() {
		redis.node().call(("ACL SETUSER orders >s3cret " + RULE).split(" "));
		WardenApplications.runner(redis.node())
			.withPropertyValues("spring.data.redis.username=orders", "spring.data.redis.password=s3cret")
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				LockOwner owner = warden.newOwner();
				assertThat(warden.getLock("acl-app").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				assertThat(redis.node().call("EXISTS", "acl-app")).isEqualTo(1L);
				warden.getLock("acl-app").unlock(owner);
			});
	}

	@Test
	void theDefaultUsersPasswordIsHonoured() {
		redis.node().call("CONFIG", "SET", "requirepass", "hunter2");
		try {
			WardenApplications.runner(redis.node())
				.withPropertyValues("spring.data.redis.password=hunter2")
				.run(context -> {
					Warden warden = context.getBean(Warden.class);
					LockOwner owner = warden.newOwner();
					assertThat(warden.getLock("requirepass").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
					warden.getLock("requirepass").unlock(owner);
				});
		}
		finally {
			// The harness talks to the node without a password: take it off again.
			try (StatefulRedisConnection<String, String> connection = clients.redisClient(RedisURI.builder()
				.withHost(redis.node().host())
				.withPort(redis.node().port())
				.withPassword("hunter2".toCharArray())).connect()) {
				connection.sync().configSet("requirepass", "");
			}
		}
	}

}
