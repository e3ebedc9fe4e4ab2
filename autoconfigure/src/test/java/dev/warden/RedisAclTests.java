package dev.warden;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis ACL rule the README gives for Warden's user is enough: locks, fencing tokens,
 * semaphores and a delayed queue work for a user with only those permissions.
 */
class RedisAclTests {

	/** The README's rule, word for word after the user name and password. */
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
	}

}
