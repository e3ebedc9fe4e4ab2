package dev.warden.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.warden.Warden;
import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.ratelimit.RateLimit;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.warden.compat.Conditions.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * This version and the last release on one Redis, as during a rolling deploy (and the other way
 * round during a rollback): tasks scheduled by either run by the other, both consuming one queue
 * run each task once, every lock kind contended across versions, limiters and task limits shared,
 * dead letters re-driven across. This version logs no WARN or ERROR line, the last release no ERROR
 * line but its handler's failures on purpose.
 */
class MixedVersionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static OtherVersion last;

	private static RedisClient client;

	private static Warden warden;

	private static RedisCommands<String, String> commands;

	private final List<TaskConsumer> consumers = new ArrayList<>();

	/** What this JVM logs at WARN or above while the tests run. */
	private static final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	@BeforeAll
	static void start() throws Exception {
		Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		logged.addFilter(new ThresholdFilter());
		logged.start();
		root.addAppender(logged);
		last = OtherVersion.lastRelease("mixed-versions", redis.node());
		client = RedisClient.create(RedisURI.create(redis.node().host(), redis.node().port()));
		warden = Warden.builder(client).build();
		commands = client.connect().sync();
	}

	@AfterAll
	static void stop() throws Exception {
		if (last != null) {
			assertThat(last.errors()).as("errors logged by the last release")
				.allMatch(line -> line.contains("failing on purpose"));
			last.close();
		}
		if (warden != null) {
			warden.close();
			client.shutdown();
		}
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
		assertThat(logged.list).as("WARN and ERROR lines logged by this version")
			.map(ILoggingEvent::getFormattedMessage)
			.isEmpty();
	}

	/** Lets WARN and above through. */
	private static final class ThresholdFilter extends Filter<ILoggingEvent> {

		@Override
		public FilterReply decide(ILoggingEvent event) {
			return event.getLevel().isGreaterOrEqual(Level.WARN) ? FilterReply.NEUTRAL : FilterReply.DENY;
		}

	}

	@BeforeEach
	void drainEvents() {
		last.drainEvents();
	}

	@AfterEach
	void stopConsumers() {
		consumers.forEach(TaskConsumer::close);
	}

	@Test
	void tasksTheLastReleaseSchedulesRunHere() throws Exception {
		Set<String> ran = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 50; i++) {
			last.call("schedule old-to-new t" + i + " 0 payload-" + i);
		}
		consumers.add(queue("old-to-new").consume(delivery -> ran.add(delivery.id() + "=" + delivery.payload())));

		awaitUntil("all 50 run here", () -> ran.size() == 50);
		assertThat(ran).contains("t0=payload-0", "t49=payload-49");
	}

	@Test
	void tasksThisVersionSchedulesRunInTheLastRelease() throws Exception {
		DelayedQueue<String> queue = queue("new-to-old");
		for (int i = 0; i < 50; i++) {
			queue.schedule("t" + i, "payload-" + i, Duration.ZERO);
		}
		last.call("consume new-to-old");

		Set<String> ran = new HashSet<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (ran.size() < 50 && System.nanoTime() < deadline) {
			String event = last.nextEvent(Duration.ofSeconds(1));
			if (event != null) {
				ran.add(event);
			}
		}
		last.call("stop new-to-old");
		assertThat(ran).hasSize(50).contains("ran new-to-old t7 payload-7");
	}

	@Test
	void bothVersionsConsumingOneQueueRunEachTaskOnce() throws Exception {
		int count = 400;
		DelayedQueue<String> queue = queue("shared");
		ConcurrentLinkedQueue<String> ranHere = new ConcurrentLinkedQueue<>();
		last.call("consume shared");
		consumers.add(queue.consume(delivery -> ranHere.add(delivery.id())));
		for (int i = 0; i < count; i++) {
			// Half scheduled by each version, due over half a second.
			if (i % 2 == 0) {
				queue.schedule("s" + i, "x", Duration.ofMillis(i));
			}
			else {
				last.call("schedule shared s" + i + " " + i + " x");
			}
		}

		List<String> ranThere = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (ranHere.size() + ranThere.size() < count && System.nanoTime() < deadline) {
			String event = last.nextEvent(Duration.ofMillis(200));
			if (event != null) {
				ranThere.add(event.split(" ")[2]);
			}
		}
		last.call("stop shared");
		ranThere.addAll(last.drainEvents().stream().map(event -> event.split(" ")[2]).toList());

		List<String> all = new ArrayList<>(ranHere);
		all.addAll(ranThere);
		assertThat(all).as("each task once").hasSize(count).doesNotHaveDuplicates();
		assertThat(ranThere).as("the last release took its share").isNotEmpty();
		assertThat(ranHere).as("this version took its share").isNotEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "lock", "fair", "simple", "write" })
	void aLockOfEachKindExcludesTheOtherVersion(String kind) throws Exception {
		String name = "contended-" + kind;
		Lock here = VersionDriver.lock(warden, kind, name);

		assertThat(last.call("trylock " + kind + " " + name + " 0")).isEqualTo("true");
		assertThat(here.tryLock(0, TimeUnit.MILLISECONDS)).as("held by the last release").isFalse();
		last.call("unlock " + kind + " " + name);
		assertThat(here.tryLock(10, TimeUnit.SECONDS)).as("released by the last release").isTrue();
		assertThat(last.call("trylock " + kind + " " + name + " 0")).as("held here").isEqualTo("false");
		here.unlock();
		assertThat(last.call("trylock " + kind + " " + name + " 10000")).as("released here").isEqualTo("true");
		last.call("unlock " + kind + " " + name);
	}

	@Test
	void readersShareAcrossVersionsAndExcludeAWriter() throws Exception {
		Lock read = warden.getReadWriteLock("shared-reads").readLock();
		Lock write = warden.getReadWriteLock("shared-reads").writeLock();

		assertThat(last.call("trylock read shared-reads 0")).isEqualTo("true");
		assertThat(read.tryLock(0, TimeUnit.MILLISECONDS)).as("a reader beside the last release's").isTrue();
		assertThat(write.tryLock(0, TimeUnit.MILLISECONDS)).as("no writer while they read").isFalse();
		read.unlock();
		last.call("unlock read shared-reads");
		assertThat(write.tryLock(10, TimeUnit.SECONDS)).isTrue();
		write.unlock();
	}

	@ParameterizedTest
	@ValueSource(strings = { "semaphore", "permit" })
	void aPermitTakenByOneVersionIsMissingInTheOther(String kind) throws Exception {
		String name = "permits-" + kind;
		assertThat(last.call("trylock " + kind + " " + name + " 0")).isEqualTo("true");
		if (kind.equals("semaphore")) {
			assertThat(warden.getSemaphore(name).tryAcquire()).isFalse();
			last.call("unlock " + kind + " " + name);
			assertThat(warden.getSemaphore(name).tryAcquire(1, 10, TimeUnit.SECONDS)).isTrue();
			warden.getSemaphore(name).release();
		}
		else {
			assertThat(warden.getPermitExpirableSemaphore(name).tryAcquire(0, 60_000, TimeUnit.MILLISECONDS)).isEmpty();
			last.call("unlock " + kind + " " + name);
			String permit = warden.getPermitExpirableSemaphore(name).tryAcquire(10_000, 60_000, TimeUnit.MILLISECONDS)
				.orElseThrow();
			warden.getPermitExpirableSemaphore(name).release(permit);
		}
	}

	@Test
	void aLatchCountedDownByTheLastReleaseOpensHere() throws Exception {
		DistributedCountDownLatch latch = warden.getCountDownLatch("opening");
		assertThat(latch.trySetCount(1)).isTrue();
		last.call("latch-down opening");
		assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aRateLimiterIsSharedAcrossVersions() throws Exception {
		int grantedThere = 0;
		for (int i = 0; i < 3; i++) {
			grantedThere += Boolean.parseBoolean(last.call("rate exports 5")) ? 1 : 0;
		}
		int grantedHere = 0;
		for (int i = 0; i < 3; i++) {
			grantedHere += warden.getRateLimiter("exports", RateLimit.of(5, Duration.ofMinutes(1))).tryAcquire() ? 1 : 0;
		}
		assertThat(grantedThere).isEqualTo(3);
		assertThat(grantedHere).as("five a minute between them").isEqualTo(2);
		assertThat(last.call("rate exports 5")).isEqualTo("false");
	}

	@Test
	void deadLettersOfEitherVersionAreReDrivenByTheOther() throws Exception {
		DelayedQueue<String> queue = queue("dead-across");
		last.call("consume-failing dead-across");
		queue.schedule("d1", "x", Duration.ZERO);
		awaitUntil("a dead letter of the last release", () -> queue.deadLetterCount() == 1);
		last.call("stop dead-across");

		Set<String> ran = ConcurrentHashMap.newKeySet();
		consumers.add(queue.consume(delivery -> ran.add(delivery.id())));
		assertThat(queue.requeueDeadLetter("d1")).isTrue();
		awaitUntil("re-driven here and run", () -> ran.contains("d1"));
		consumers.remove(0).close();

		consumers.add(queue.consume(delivery -> {
			throw new IllegalStateException("failing on purpose here");
		}, VersionDriver.ONE_ATTEMPT));
		queue.schedule("d2", "y", Duration.ZERO);
		awaitUntil("a dead letter of this version", () -> queue.deadLetterCount() == 1);
		consumers.remove(0).close();
		assertThat(last.call("redrive dead-across")).isEqualTo("1");
		last.call("consume dead-across");
		assertThat(last.nextEvent(Duration.ofSeconds(30))).isEqualTo("ran dead-across d2 y");
		last.call("stop dead-across");
	}

	@Test
	void taskLimitsHoldAcrossVersions() throws Exception {
		DelayedQueue<String> queue = queue("limited");
		Set<String> ranHere = ConcurrentHashMap.newKeySet();
		last.call("consume-limited limited");
		consumers.add(queue.consume(delivery -> {
			VersionDriver.overlapCheck(commands, delivery.payload());
			ranHere.add(delivery.id());
		}, dev.warden.task.ConsumerOptions.DEFAULTS.withLimits(VersionDriver.ONE_PER_PAYLOAD)));
		for (int i = 0; i < 60; i++) {
			queue.schedule("l" + i, "key-" + (i % 3), Duration.ZERO);
		}

		Set<String> ranThere = new HashSet<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (ranHere.size() + ranThere.size() < 60 && System.nanoTime() < deadline) {
			String event = last.nextEvent(Duration.ofMillis(200));
			if (event != null) {
				ranThere.add(event.split(" ")[2]);
			}
		}
		last.call("stop limited");
		assertThat(ranHere.size() + ranThere.size()).as("all ran").isEqualTo(60);
		assertThat(commands.get("compat:overlap")).as("two tasks of one key at once").isNull();
	}

	@Test
	void aTaskOfTheNewerVersionIsLeftByTheLastReleaseAndRunHereAndAnOlderOneUpgraded() throws Exception {
		DelayedQueue<Object> evolving = warden.getDelayedQueue("evolving");
		last.call("app " + MixedVersionApps.Before.class.getName());
		try {
			ConfigurableApplicationContext after = after();
			after.getBean(MixedVersionApps.After.Reminders.class).remind("o-1", "urgent");
			after.close();
			evolving.reschedule("o-1", Duration.ZERO);
			awaitUntil("left by the last release", () -> evolving.pendingTask("o-1")
				.map(task -> task.lastError() != null).orElse(false));
			dev.warden.task.QueuedTask left = evolving.pendingTask("o-1").orElseThrow();
			assertThat(left.lastError()).contains("version 2");
			assertThat(left.attempts()).as("no attempt spent").isZero();
			assertThat(last.warnings()).anySatisfy(line -> assertThat(line).contains("later version"));
			// Version 1 of a task, scheduled by the last release, due in an hour.
			last.call("remind o-2");
		}
		finally {
			last.call("app-stop");
		}

		MixedVersionApps.reminded.clear();
		ConfigurableApplicationContext after = after();
		try {
			List<Object> first = MixedVersionApps.reminded.poll(30, TimeUnit.SECONDS);
			evolving.reschedule("o-2", Duration.ZERO);
			List<Object> second = MixedVersionApps.reminded.poll(30, TimeUnit.SECONDS);
			assertThat(first).as("the task the last release left").isEqualTo(List.of("o-1", "urgent"));
			assertThat(second).as("the last release's task, upgraded").isEqualTo(List.of("o-2", "normal"));
		}
		finally {
			after.close();
		}
		assertThat(last.drainEvents()).as("none run by the last release").noneMatch(e -> e.startsWith("reminded"));
	}

	@Test
	void aRecurringJobOfBothVersionsRunsEachOccurrenceOnce() throws Exception {
		commands.del("compat:heartbeats");
		last.call("app " + MixedVersionApps.Before.class.getName());
		ConfigurableApplicationContext after = after();
		try {
			awaitUntil("ten heartbeats", () -> commands.llen("compat:heartbeats") >= 10);
		}
		finally {
			after.close();
			last.call("app-stop");
		}
		List<String> beats = commands.lrange("compat:heartbeats", 0, -1);
		assertThat(beats).as("each occurrence once").doesNotHaveDuplicates();
	}

	private static ConfigurableApplicationContext after() {
		return new SpringApplicationBuilder(MixedVersionApps.After.class).web(WebApplicationType.NONE)
			.run("--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
					"--spring.application.name=mixed");
	}

	private static DelayedQueue<String> queue(String name) {
		return warden.getDelayedQueue(name, String.class);
	}

}
