package dev.warden.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.lock.annotation.LockContext;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class FencingTokenTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		threads.shutdownNow();
	}

	@Test
	void tokensStrictlyIncreaseAcrossClientsAndLeaseExpiryAndAReentryKeepsItsHoldsToken() throws Exception {
		Warden first = clients.open(redis.node());
		Warden second = clients.open(redis.node());
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			Warden warden = (i % 2 == 0) ? first : second;
			LockOwner owner = warden.newOwner();
			DistributedReentrantLock lock = warden.getLock("fenced");
			long token = lock.tryLockWithToken(owner, 5, 10, TimeUnit.SECONDS).orElseThrow();
			assertThat(lock.tryLockWithToken(owner, 0, 10, TimeUnit.SECONDS)).as("re-entry").hasValue(token);
			tokens.add(token);
			lock.unlock(owner);
			lock.unlock(owner);
		}
		// A holder whose lease ran out; the next holder's token is still higher.
		LockOwner expired = first.newOwner();
		tokens.add(first.getLock("fenced").tryLockWithToken(expired, 0, 100, TimeUnit.MILLISECONDS).orElseThrow());
		tokens.add(second.getLock("fenced").tryLockWithToken(second.newOwner(), 10, 10, TimeUnit.SECONDS).orElseThrow());

		assertThat(tokens).isSorted().doesNotHaveDuplicates().hasSize(12);
		assertThat(first.getLock("fenced").tryLockWithToken(first.newOwner(), 0, 1, TimeUnit.SECONDS)).isEmpty();
	}

	@Test
	void aReentryKeepsTheTokenOfItsHoldForEveryKindThatHandsThemOut() throws Exception {
		Warden warden = clients.open(redis.node());
		LockOwner owner = warden.newOwner();
		for (DistributedReentrantLock lock : List.of(warden.getLock("kept"), warden.getFairLock("kept-fair"),
				warden.getReadWriteLock("kept-rw").writeLock())) {
			// A hold taken without a token takes one at its first re-entry that asks, and keeps it.
			assertThat(lock.tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
			long token = lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS).orElseThrow();
			assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).as(lock.getName()).hasValue(token);
			lock.unlock(owner);
			lock.unlock(owner);
			assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).as(lock.getName()).hasValue(token);
			lock.unlock(owner);
			lock.unlock(owner);
			assertThat(lock.isLocked()).isFalse();
			assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS).orElseThrow()).as("a new hold")
				.isGreaterThan(token);
			lock.unlock(owner);
		}
	}

	@Test
	void acquisitionsThatReturnNoTokenLeaveTheCounterAlone() throws Exception {
		Warden warden = clients.open(redis.node());
		DistributedReentrantLock lock = warden.getLock("unfenced");
		DistributedReentrantLock fair = warden.getFairLock("unfenced-fair");
		DistributedReentrantLock write = warden.getReadWriteLock("unfenced-rw").writeLock();
		threads.submit(() -> {
			for (DistributedReentrantLock each : List.of(lock, fair, write)) {
				each.lock();
				assertThat(each.tryLock(0, TimeUnit.SECONDS)).isTrue();
				each.unlock();
				each.unlock();
			}
			return null;
		}).get();
		assertThat(fencingCounters()).isEmpty();

		// The first token is the counter's first value; plain acquisitions in between take none.
		List<Long> tokens = threads.submit(() -> {
			List<Long> taken = new ArrayList<>();
			taken.add(lock.lockWithToken());
			lock.unlock();
			lock.lock();
			lock.unlock();
			taken.add(lock.lockWithToken());
			lock.unlock();
			return taken;
		}).get();
		assertThat(tokens).containsExactly(1L, 2L);
	}

	@Test
	void writeLocksGetTokensAndReadersNone() throws Exception {
		DistributedReadWriteLock lock = clients.open(redis.node()).getReadWriteLock("fenced-rw");
		long first = threads.submit(() -> {
			long token = lock.writeLock().lockWithToken();
			lock.writeLock().unlock();
			return token;
		}).get();
		long second = threads.submit(() -> {
			long token = lock.writeLock().lockWithToken();
			lock.writeLock().unlock();
			return token;
		}).get();
		assertThat(second).isGreaterThan(first);
		assertThat(threads.submit(() -> {
			OptionalLong token = lock.readLock().tryLockWithToken(0, TimeUnit.SECONDS);
			lock.readLock().unlock();
			return token;
		}).get()).hasValue(0);
	}

	@Test
	void tokensKeepIncreasingAfterARedisRestartWithAppendOnlyFile() throws Exception {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("fencing-aof").appendOnly(true)
			.option("appendfsync", "always"))) {
			Warden warden = clients.open(node);
			LockOwner owner = warden.newOwner();
			long before = warden.getLock("durable-fence").tryLockWithToken(owner, 0, 30, TimeUnit.SECONDS).orElseThrow();
			node.restart();
			Warden after = clients.open(node);
			// The hold itself survived too; wait it out by force.
			after.getLock("durable-fence").forceUnlock();
			long next = after.getLock("durable-fence").tryLockWithToken(after.newOwner(), 0, 30, TimeUnit.SECONDS)
				.orElseThrow();
			assertThat(next).isGreaterThan(before);
		}
	}

	@Test
	void annotatedMethodsSeeTheirToken() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					WardenAutoConfiguration.class, WardenLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
					"spring.data.redis.port=" + redis.node().port(), "warden.lock.key-prefix=")
			.withUserConfiguration(Accounts.class)
			.run(context -> {
				Account account = context.getBean(Account.class);
				long first = account.credit(7);
				long second = account.credit(7);
				assertThat(second).isGreaterThan(first);
				assertThat(fencingCounters()).hasSize(1);
				assertThat(redis.node().call("GET", fencingCounters().get(0))).isEqualTo(Long.toString(second));
				assertThat(account.creditWithoutToken(7)).isEmpty();
				assertThat(redis.node().call("GET", fencingCounters().get(0))).as("no token, no write")
					.isEqualTo(Long.toString(second));
				assertThat(account.transfer(1, 2)).containsOnlyKeys("account:1", "account:2");
				assertThat(LockContext.currentToken()).isEmpty();
			});
	}

	/** The fencing counters in Redis. */
	private static List<String> fencingCounters() {
		List<String> counters = new ArrayList<>();
		for (Object key : (List<?>) redis.node().call("KEYS", "warden_fencing:*")) {
			counters.add((String) key);
		}
		return counters;
	}

	@Configuration(proxyBeanMethods = false)
	static class Accounts {

		@Bean
		Account account() {
			return new Account();
		}

	}

	static class Account {

		@dev.warden.lock.annotation.DistributedLock(name = "account", key = "#id", fencingToken = true)
		public long credit(long id) {
			return LockContext.currentToken().orElseThrow();
		}

		@dev.warden.lock.annotation.DistributedLock(name = "account", key = "#id")
		public OptionalLong creditWithoutToken(long id) {
			return LockContext.currentToken();
		}

		@dev.warden.lock.annotation.DistributedLock(name = "account", key = { "#from", "#to" }, fencingToken = true)
		public java.util.Map<String, Long> transfer(long from, long to) {
			assertThat(LockContext.currentToken()).isEmpty();
			return LockContext.currentTokens();
		}

	}

}
