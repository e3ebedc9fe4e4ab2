package dev.warden.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.EndedDelivery;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskListener;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.warden.compat.Conditions.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first change of a stored format, through its two steps: this version reads tasks formats 1
 * and 2 and keeps the claims of its deliveries in format 2 (one meta field, {@code x:<id>}) only once
 * no live instance reads format 1 alone. A fleet of the last release and this version moves to
 * format 2 when the last release leaves and back when it returns, as in a rolling deploy and its
 * rollback, without losing, running twice or stalling a task: a delivery claimed in format 2 by an
 * instance that vanished is taken over by the last release once its claim lapses, and runs there.
 */
class FormatMoveTests {

	private static final String QUEUE = "format-move";

	private static final String META = "warden:task:{" + QUEUE + "}:meta";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<AutoCloseable> opened = new ArrayList<>();

	private final ConcurrentLinkedQueue<String> ranHere = new ConcurrentLinkedQueue<>();

	@AfterEach
	void close() throws Exception {
		for (int i = opened.size() - 1; i >= 0; i--) {
			opened.get(i).close();
		}
	}

	@Test
	void aFleetMovesToFormat2WhenTheLastReleaseLeavesAndBackWhenItReturns() throws Exception {
		// 1. The last release and this version consume one queue: claims are kept in format 1.
		OtherVersion last = open(OtherVersion.lastRelease("format-move-before", redis.node()));
		Warden here = open(RedisClient.create(RedisURI.create(redis.node().host(), redis.node().port())),
				Duration.ofMillis(300));
		assertThat(here.writeFormats()).as("while the last release lives").containsEntry("tasks", 1);
		DelayedQueue<String> queue = here.getDelayedQueue(QUEUE, String.class);
		last.call("consume " + QUEUE);
		TaskConsumer consumer = queue.consume(delivery -> ranHere.add(delivery.id()));
		List<String> ranThere = new ArrayList<>();
		scheduleAndAwait(queue, last, "before-", ranThere);
		assertThat(ranThere).as("the last release took its share").isNotEmpty();
		last.call("stop " + QUEUE);
		last.close();

		// 2. Without it, this version keeps its claims in format 2 from its next announcement on.
		awaitUntil("format 2 written", () -> here.writeFormats().get("tasks") == 2);
		ranHere.clear();
		for (int i = 0; i < 100; i++) {
			queue.schedule("after-" + i, "x", Duration.ofMillis(i));
		}
		awaitUntil("the tasks scheduled after the move ran", () -> ranHere.size() >= 100);
		assertThat(ranHere).as("each once").hasSize(100).doesNotHaveDuplicates();
		consumer.close();
		awaitUntil("nothing left of them in meta", () -> meta().isEmpty());

		// 3. A rollback: this version's instance vanishes with a delivery under way, claimed in
		// format 2; the last release, back, takes it over once the claim lapses and runs it once.
		TcpProxy proxy = open(TcpProxy.start(redis.node()));
		Warden vanishing = open(RedisClient.create(RedisURI.create(proxy.host(), proxy.port())), Duration.ofMillis(300));
		assertThat(vanishing.writeFormats()).containsEntry("tasks", 2);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		open(vanishing.getDelayedQueue(QUEUE, String.class).consume(delivery -> {
			started.countDown();
			// Bounded: ends once the test is over.
			release.await(60, TimeUnit.SECONDS);
		}, ConsumerOptions.DEFAULTS.withVisibilityTimeout(Duration.ofSeconds(1))));
		opened.add(release::countDown);
		queue.schedule("stranded", "payload", Duration.ZERO);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(meta()).as("its claim, in one field").containsOnlyKeys("x:stranded");
		assertThat(meta().get("x:stranded")).startsWith("1 ");
		proxy.blackhole();

		OtherVersion back = open(OtherVersion.lastRelease("format-move-after", redis.node()));
		back.call("consume " + QUEUE);
		assertThat(back.nextEvent(Duration.ofSeconds(60))).as("run by the last release")
			.isEqualTo("ran " + QUEUE + " stranded payload");
		awaitUntil("the stranded task completed, nothing of it left",
				() -> meta().isEmpty() && redis.node().call("HLEN", "warden:task:{" + QUEUE + "}:tasks").equals(0L));
		assertThat(back.nextEvent(Duration.ofMillis(500))).as("run once").isNull();
		back.call("stop " + QUEUE);
	}

	@Test
	void aLapsedFormat2DeliveryTakenOverByTheLastReleaseNoLongerStands() throws Exception {
		// This version alone: its claims are kept in format 2. Its instance loses Redis (a partition)
		// with a delivery under way; the last release takes the task over once the claim lapsed, and
		// while it runs it there, the lapsed delivery's handler fails late. Its claim no longer
		// stands, as it would not in a fleet of either version alone: the failure changes nothing.
		redis.node().call("FLUSHALL");
		TcpProxy proxy = open(TcpProxy.start(redis.node()));
		List<EndedDelivery> ended = new CopyOnWriteArrayList<>();
		RedisClient client = RedisClient.create(RedisURI.create(proxy.host(), proxy.port()));
		opened.add(client::shutdown);
		Warden partitioned = open(Warden.builder(client)
			.fleetAnnounceInterval(Duration.ofMillis(300))
			.commandTimeout(Duration.ofSeconds(2))
			.taskListener(new TaskListener() {
				@Override
				public void onEnded(EndedDelivery delivery) {
					ended.add(delivery);
				}
			})
			.build());
		assertThat(partitioned.writeFormats()).containsEntry("tasks", 2);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		DelayedQueue<String> queue = partitioned.getDelayedQueue(QUEUE, String.class);
		open(queue.consume(delivery -> {
			started.countDown();
			// Bounded: ends once the test is over.
			release.await(60, TimeUnit.SECONDS);
			throw new IllegalStateException("the lapsed delivery fails late");
		}, ConsumerOptions.DEFAULTS.withVisibilityTimeout(Duration.ofSeconds(1))));
		opened.add(release::countDown);
		queue.schedule("lapsed", "payload", Duration.ZERO);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(meta()).as("its claim, in one field").containsOnlyKeys("x:lapsed");
		proxy.blackhole();

		OtherVersion last = open(OtherVersion.lastRelease("format-move-lapsed", redis.node()));
		last.call("consume-held " + QUEUE);
		assertThat(last.nextEvent(Duration.ofSeconds(60))).as("taken over by the last release")
			.isEqualTo("started " + QUEUE + " lapsed payload");
		proxy.heal();
		release.countDown();
		awaitUntil("the lapsed delivery ended", () -> !ended.isEmpty());

		assertThat(ended.get(0).outcome()).as("the lapsed delivery's late failure, told: " + meta())
			.isEqualTo(EndedDelivery.Outcome.SUPERSEDED);
		assertThat(redis.node().call("ZSCORE", "warden:task:{" + QUEUE + "}:due", "lapsed"))
			.as("not due again while the last release runs it").isNull();
		last.call("let " + QUEUE);
		assertThat(last.nextEvent(Duration.ofSeconds(60))).isEqualTo("ran " + QUEUE + " lapsed payload");
		awaitUntil("the task completed, nothing of it left",
				() -> meta().isEmpty() && redis.node().call("HLEN", "warden:task:{" + QUEUE + "}:tasks").equals(0L));
		last.call("stop " + QUEUE);
	}

	@Test
	void theLastReleaseArrivingCancelsATaskClaimedAheadInFormat2() throws Exception {
		// This version alone keeps its claims in format 2, and claims a task ahead of its due time.
		// The last release arrives (a rollback) before this instance's next announcement, and cancels
		// the task before it is due: a task claimed ahead that has not started is cancelled, and does
		// not run, as when the claim is kept in format 1.
		redis.node().call("FLUSHALL");
		RedisClient client = RedisClient.create(RedisURI.create(redis.node().host(), redis.node().port()));
		opened.add(client::shutdown);
		Warden here = open(Warden.builder(client)
			.fleetAnnounceInterval(Duration.ofMinutes(1))
			.taskClaimAhead(Duration.ofSeconds(1))
			.commandTimeout(Duration.ofSeconds(2))
			.build());
		assertThat(here.writeFormats()).containsEntry("tasks", 2);
		OtherVersion last = open(OtherVersion.lastRelease("format-move-cancel", redis.node()));
		// Its scripts loaded, so that the cancel below answers at once.
		assertThat(last.call("cancel " + QUEUE + " nothing")).isEqualTo("false");
		DelayedQueue<String> queue = here.getDelayedQueue(QUEUE, String.class);
		open(queue.consume(delivery -> ranHere.add(delivery.id())));

		// A consumer claims ahead along with a task that is due: "first" brings "ahead" with it.
		queue.schedule("ahead", "payload", Duration.ofSeconds(1));
		queue.schedule("first", "payload", Duration.ZERO);
		awaitUntil("claimed ahead", () -> meta().containsKey("d:ahead"));
		Map<String, String> claimed = meta();
		String cancelled = last.call("cancel " + QUEUE + " ahead");
		boolean startedMeanwhile = !meta().containsKey("d:ahead") && "false".equals(cancelled);
		assertThat(startedMeanwhile).as("the claim ahead outlived the cancel (else the test proves nothing)").isFalse();

		assertThat(cancelled).as("cancelled by the last release, the claim ahead being " + claimed).isEqualTo("true");
		queue.schedule("later", "payload", Duration.ofMillis(1500));
		awaitUntil("a task due after it ran", () -> ranHere.contains("later"));
		assertThat(ranHere).as("a cancelled task does not run").containsExactlyInAnyOrder("first", "later");
	}

	/**
	 * Schedules 100 tasks, half from each version, due over a tenth of a second, and waits until
	 * each ran once, here or there.
	 */
	private void scheduleAndAwait(DelayedQueue<String> queue, OtherVersion last, String prefix, List<String> ranThere)
			throws Exception {
		int count = 100;
		for (int i = 0; i < count; i++) {
			if (i % 2 == 0) {
				queue.schedule(prefix + i, "x", Duration.ofMillis(i));
			}
			else {
				last.call("schedule " + QUEUE + " " + prefix + i + " " + i + " x");
			}
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (ranHere.size() + ranThere.size() < count && System.nanoTime() < deadline) {
			String event = last.nextEvent(Duration.ofMillis(200));
			if (event != null) {
				ranThere.add(event.split(" ")[2]);
			}
		}
		List<String> all = new ArrayList<>(ranHere);
		all.addAll(ranThere);
		assertThat(all).as("each task once").hasSize(count).doesNotHaveDuplicates();
	}

	private Warden open(RedisClient client, Duration announceInterval) {
		opened.add(client::shutdown);
		return open(Warden.builder(client)
			.fleetAnnounceInterval(announceInterval)
			.commandTimeout(Duration.ofSeconds(2))
			.build());
	}

	private <T extends AutoCloseable> T open(T resource) {
		opened.add(resource);
		return resource;
	}

	private Map<String, String> meta() {
		List<?> fields = (List<?>) redis.node().call("HGETALL", META);
		Map<String, String> meta = new java.util.TreeMap<>();
		for (int i = 0; i + 1 < fields.size(); i += 2) {
			meta.put((String) fields.get(i), (String) fields.get(i + 1));
		}
		return meta;
	}

}
