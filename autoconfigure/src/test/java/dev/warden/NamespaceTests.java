package dev.warden;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.warden.autoconfigure.WardenBuilderCustomizer;
import dev.warden.autoconfigure.WardenProperties;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockOwner;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.DelayedQueue;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code warden.namespace} and {@code warden.lock.name-prefix}: two applications on one Redis, each
 * connecting as a Redis ACL user allowed only its own keys and channels (the rule of {@code docs/production.md}), run
 * their tasks, recurring tasks, rate limiters and locks without seeing or touching each other's;
 * with the default namespace, every key is the one Warden always wrote.
 */
class NamespaceTests {

	/**
	 * The rule of {@code docs/production.md} for an application in namespace {@code <ns>} whose programmatic locks have
	 * the name prefix {@code <ns>:}, word for word after the user name and password.
	 */
	static String rule(String ns) {
		return ("on ~NS:* ~NS_fencing:* ~{NS:* ~redisson_lock_queue:{NS:* ~redisson_lock_timeout:{NS:* resetchannels "
				+ "&NS:* &redisson_lock__channel:{NS:* &redisson_rwlock:{NS:* &redisson_sc:{NS:* "
				+ "&redisson_countdownlatch__channel__{NS:* &warden_permits:{NS:* &__sentinel__:hello +@connection "
				+ "+@scripting +@pubsub +@string +@hash +@list +@sortedset +@keyspace +time +wait")
			.replace("NS", ns);
	}

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private ApplicationContextRunner application(String ns) {
		return WardenApplications.runner(redis.node())
			.withUserConfiguration(App.class)
			.withPropertyValues("spring.data.redis.username=" + ns, "spring.data.redis.password=pw-" + ns,
					"warden.namespace=" + ns, "warden.lock.name-prefix=" + ns + ":",
					"warden.delayed-task.shutdown-grace=5s");
	}

	@Test
	void twoApplicationsInTheirOwnNamespacesShareOneRedisApart() {
		for (String ns : List.of("app1", "app2")) {
			redis.node().call(("ACL SETUSER " + ns + " >pw-" + ns + " " + rule(ns)).split(" "));
		}
		application("app1").run(first -> application("app2").run(second -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			Warden app1 = first.getBean(Warden.class);
			Warden app2 = second.getBean(Warden.class);
			Jobs jobs1 = first.getBean(Jobs.class);
			Jobs jobs2 = second.getBean(Jobs.class);

			// Delayed tasks: the same queue name, each application's own tasks.
			for (int i = 0; i < 5; i++) {
				jobs1.send("a" + i);
				jobs2.send("b" + i);
			}
			assertThat(received(jobs1, 5)).containsExactly("a0", "a1", "a2", "a3", "a4");
			assertThat(received(jobs2, 5)).containsExactly("b0", "b1", "b2", "b3", "b4");
			RedisChannels.awaitSubscribers(redis.node(), "app1:task:{mail}:wake", 1);
			RedisChannels.awaitSubscribers(redis.node(), "app2:task:{mail}:wake", 1);

			// Recurring tasks: each plans and runs its own.
			Eventually.await("both ticked twice", () -> jobs1.ticks() >= 2 && jobs2.ticks() >= 2);
			assertThat(redis.node().call("EXISTS", "app1:task:{recurring}:recurring", "app2:task:{recurring}:recurring"))
				.isEqualTo(2L);

			// A keyed rate limiter: the same name, a limit each.
			RateLimit once = RateLimit.of(1, Duration.ofHours(1));
			DistributedRateLimiter limiter1 = app1.getRateLimiter("api:user-1", once);
			assertThat(limiter1.tryAcquire()).isTrue();
			assertThat(limiter1.tryAcquire()).isFalse();
			assertThat(app2.getRateLimiter("api:user-1", once).tryAcquire()).isTrue();
			assertThat(redis.node().call("EXISTS", "app1:rate:{api:user-1}", "app2:rate:{api:user-1}")).isEqualTo(2L);
			assertThat(app1.rateLimitersInUse("api:", 10)).isEqualTo(1);

			// An annotated lock under <namespace>:lock:, without the name prefix in front.
			assertThat(jobs1.reserve("apple")).isEqualTo("app1:lock:stock:apple held");
			assertThat(jobs2.reserve("apple")).isEqualTo("app2:lock:stock:apple held");

			// Programmatic locks under the name prefix: every kind, contended ones through their channels.
			for (Warden warden : List.of(app1, app2)) {
				String ns = warden.getNamespace();
				DistributedReentrantLock lock = warden.getLock("orders:1");
				assertThat(lock.getName()).isEqualTo(ns + ":orders:1");
				assertContendedHandOver(warden, lock);
				assertContendedHandOver(warden, warden.getFairLock("orders:fair"));
				assertContendedHandOver(warden, warden.getReadWriteLock("orders:rw").writeLock());
				LockOwner owner = warden.newOwner();
				assertThat(warden.getReadWriteLock("orders:rw").readLock().tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				warden.getReadWriteLock("orders:rw").readLock().unlock(owner);
				assertThat(warden.getSimpleLock("orders:simple").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				warden.getSimpleLock("orders:simple").unlock(owner);
				assertThat(warden.getSemaphore("slots").trySetPermits(1)).isTrue();
				assertThat(warden.getSemaphore("slots").tryAcquire()).isTrue();
				assertThat(warden.getPermitExpirableSemaphore("exports").trySetPermits(1)).isTrue();
				warden.getPermitExpirableSemaphore("exports")
					.release(warden.getPermitExpirableSemaphore("exports").tryAcquire(0, 10, TimeUnit.SECONDS)
						.orElseThrow());
				assertThat(warden.getCountDownLatch("ready").trySetCount(1)).isTrue();
				assertThat(redis.node().call("EXISTS", ns + ":slots", ns + ":ready")).isEqualTo(2L);
			}
			assertThat((List<?>) redis.node().call("KEYS", "app1_fencing:*")).isNotEmpty();
			assertThat((List<?>) redis.node().call("KEYS", "app2_fencing:*")).isNotEmpty();
			assertThat((List<?>) redis.node().call("KEYS", "warden*")).isEmpty();

			// The catalog (the endpoint's overview) lists and counts each application's queues only.
			DelayedQueue<String> audit = app2.getDelayedQueue("audit", String.class);
			audit.schedule("later", "x", Duration.ofHours(1));
			app1.getDelayedQueue("later", String.class).schedule("t", "x", Duration.ofHours(1));
			assertThat(app1.queueNames(100)).contains("recurring", "later").doesNotContain("audit");
			assertThat(app2.queueNames(100)).contains("recurring", "audit").doesNotContain("later");
			assertThat(app1.queueStats(List.of("later")).get(0).pending()).isEqualTo(1);
			assertThat(app2.queueStats(List.of("later")).get(0).pending()).isZero();

			// Redis refuses app1's user anything of app2's.
			Warden intruder = clients.open(clients.redisClient(redis.node(), "app1", "pw-app1"),
					builder -> builder.namespace("app2"));
			assertThatThrownBy(() -> intruder.getDelayedQueue("audit", String.class).schedule("x", "x", Duration.ZERO))
				.hasMessageContaining("NOPERM");
			assertThatThrownBy(() -> app1.unprefixedLocks().getLock("app2:orders:1").tryLock(app1.newOwner(), 0,
					TimeUnit.SECONDS))
				.isInstanceOf(WardenException.class)
				.hasMessageContaining("NOPERM");
			assertThat(audit.size()).isEqualTo(1);
		}));
	}

	/** One owner holds the lock, another waits for it on its channel and takes it at the release. */
	private static void assertContendedHandOver(Warden warden, DistributedReentrantLock lock) throws Exception {
		LockOwner holder = warden.newOwner();
		LockOwner waiter = warden.newOwner();
		assertThat(lock.tryLockWithToken(holder, 0, TimeUnit.SECONDS)).as(lock.getName()).isPresent();
		CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryLock(waiter, 20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		});
		Eventually.await(lock.getName() + " waited for", () -> lock.isLocked() && !waited.isDone()
				&& !((List<?>) redis.node().call("PUBSUB", "CHANNELS", "redisson*{" + lock.getName() + "}*")).isEmpty());
		lock.unlock(holder);
		assertThat(waited.get(20, TimeUnit.SECONDS)).as(lock.getName() + " handed over").isTrue();
		lock.unlock(waiter);
	}

	private static List<String> received(Jobs jobs, int count) throws InterruptedException {
		Set<String> ids = new TreeSet<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (ids.size() < count && System.nanoTime() < deadline) {
			String id = jobs.sent().poll(100, TimeUnit.MILLISECONDS);
			if (id != null) {
				ids.add(id);
			}
		}
		return List.copyOf(ids);
	}

	@Test
	void theDefaultNamespaceKeepsEveryKeyAsItWas() {
		WardenApplications.runner(redis.node())
			.withUserConfiguration(App.class)
			.withBean(WardenBuilderCustomizer.class, () -> builder -> builder.testClock(true))
			.withPropertyValues("warden.delayed-task.shutdown-grace=5s")
			.run(context -> {
				Warden warden = context.getBean(Warden.class);
				Jobs jobs = context.getBean(Jobs.class);
				assertThat(warden.getNamespace()).isEqualTo("warden");
				assertThat(warden.getLockNamePrefix()).isEmpty();
				assertThat(context.getBean(WardenProperties.class).lockKeyPrefix()).isEqualTo("warden:lock:");

				DelayedQueue<String> queue = warden.getDelayedQueue("kept", String.class);
				queue.schedule("t", "x", Duration.ofHours(1));
				assertThat(redis.node().call("EXISTS", "warden:task:{kept}:due", "warden:task:{kept}:tasks"))
					.isEqualTo(2L);
				jobs.send("s");
				assertThat(jobs.sent().poll(20, TimeUnit.SECONDS)).isEqualTo("s");
				RedisChannels.awaitSubscribers(redis.node(), "warden:task:{mail}:wake", 1);
				Eventually.await("ticked", () -> jobs.ticks() >= 1);
				assertThat(redis.node().call("EXISTS", "warden:task:{recurring}:recurring")).isEqualTo(1L);

				assertThat(warden.getRateLimiter("kept-rate", RateLimit.of(1, Duration.ofHours(1))).tryAcquire()).isTrue();
				assertThat(redis.node().call("EXISTS", "warden:rate:{kept-rate}")).isEqualTo(1L);

				LockOwner owner = warden.newOwner();
				DistributedReentrantLock lock = warden.getLock("kept-lock");
				assertThat(lock.getName()).isEqualTo("kept-lock");
				assertThat(lock.tryLockWithToken(owner, 0, TimeUnit.SECONDS)).isPresent();
				assertThat(redis.node().call("EXISTS", "kept-lock")).isEqualTo(1L);
				lock.unlock(owner);
				List<?> counters = (List<?>) redis.node().call("KEYS", "*fencing*");
				assertThat(counters).isNotEmpty()
					.allSatisfy(key -> assertThat((String) key).matches("warden_fencing:\\{[0-9a-z]+\\}"));
				assertThat(jobs.reserve("apple")).isEqualTo("warden:lock:stock:apple held");

				warden.testClock().orElseThrow().advance(Duration.ofMillis(1));
				assertThat(redis.node().call("GET", "warden:test:clock-offset")).isEqualTo("1");
			});
	}

	@Test
	void theTestClockOfANamespaceIsItsOwn() throws Exception {
		Warden warden = clients.open(redis.node(), builder -> builder.namespace("app1").testClock(true));
		DelayedQueue<String> queue = warden.getDelayedQueue("later", String.class);
		BlockingQueue<String> ran = new LinkedBlockingQueue<>();
		queue.consume(delivery -> ran.add(delivery.id()));
		queue.schedule("in-an-hour", "x", Duration.ofHours(1));
		TestClock clock = warden.testClock().orElseThrow();
		clock.advance(Duration.ofHours(1));
		clock.wake("later");
		assertThat(redis.node().call("EXISTS", "app1:test:clock-offset")).isEqualTo(1L);
		assertThat(redis.node().call("EXISTS", "warden:test:clock-offset")).isEqualTo(0L);
		assertThat(ran.poll(20, TimeUnit.SECONDS)).isEqualTo("in-an-hour");
	}

	@Test
	void theLockKeyPrefixFollowsTheNamespaceUnlessSet() {
		WardenProperties properties = new WardenProperties();
		properties.setNamespace("billing");
		assertThat(properties.lockKeyPrefix()).isEqualTo("billing:lock:");
		properties.getLock().setKeyPrefix("locks:");
		assertThat(properties.lockKeyPrefix()).isEqualTo("locks:");
	}

	@Test
	void anInvalidNamespaceFailsStartupNamingTheProperty() {
		for (String invalid : List.of("my app", "app{1}", "app*", "x".repeat(65), "tab\there", "app:prod", "app_fencing")) {
			WardenApplications.runner(redis.node())
				.withPropertyValues("warden.namespace=" + invalid)
				.run(context -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(IllegalArgumentException.class)
					.hasMessageContaining("warden.namespace"));
		}
		WardenApplications.runner(redis.node())
			.withPropertyValues("warden.namespace=")
			.run(context -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("warden.namespace must not be empty"));
	}

	@Configuration(proxyBeanMethods = false)
	static class App {

		@Bean
		Jobs namespaceJobs(@Value("${warden.namespace:warden}") String ns) {
			return new Jobs(ns);
		}

	}

	static class Jobs {

		private final String lockKeyPrefix;

		final BlockingQueue<String> sent = new LinkedBlockingQueue<>();

		final AtomicInteger ticks = new AtomicInteger();

		Jobs(String ns) {
			this.lockKeyPrefix = ns + ":lock:";
		}

		// Read through methods: the test holds the bean's proxy, whose own fields are empty.
		public BlockingQueue<String> sent() {
			return sent;
		}

		public int ticks() {
			return ticks.get();
		}

		@DelayedTask(queue = "mail", delay = "50ms", id = "#id")
		public void send(String id) {
			sent.add(id);
		}

		@RecurringTask(name = "tick", fixedRate = "200ms")
		public void tick() {
			ticks.incrementAndGet();
		}

		@DistributedLock(name = "stock", key = "#sku")
		public String reserve(String sku) {
			String key = lockKeyPrefix + "stock:" + sku;
			return key + ((Long.valueOf(1).equals(redis.node().call("EXISTS", key))) ? " held" : " free");
		}

	}

}
