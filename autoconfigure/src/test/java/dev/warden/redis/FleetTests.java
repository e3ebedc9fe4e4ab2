package dev.warden.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.Eventually;
import dev.warden.FleetMember;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.redis.StoredFormats.Family;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet registry on a real Redis: clients see each other, a closed one leaves at once and one
 * that stops without closing after its expiry; the registry is bounded and vanishes when no instance
 * lives; each instance writes the newest format every live instance reads. Members of other
 * versions are announced with the registry's own script, through {@link Fleet}s of other formats.
 */
@ExtendWith(OutputCaptureExtension.class)
class FleetTests {

	private static final String INSTANCES = Fleet.instancesKey(Fleet.DEFAULT_NAMESPACE);

	private static final String EXPIRY = Fleet.expiryKey(Fleet.DEFAULT_NAMESPACE);

	/**
	 * How often a member that is to stop soon announces: it is live for three times this, long enough
	 * for the next few calls to see it on a loaded machine.
	 */
	private static final Duration SHORT = Duration.ofSeconds(1);

	private static final Duration LONG = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final List<RedisEngine> engines = new ArrayList<>();

	@AfterEach
	void closeEngines() {
		engines.forEach(RedisEngine::close);
	}

	@Test
	void twoClientsSeeEachOtherAndAClosedOneLeavesAtOnce() {
		Warden first = clients.open(redis.node());
		Warden second = clients.open(redis.node());

		List<FleetMember> fleet = first.fleet();
		assertThat(ids(fleet)).containsExactlyInAnyOrder(first.getClientId(), second.getClientId());
		FleetMember other = fleet.stream().filter(member -> member.clientId().equals(second.getClientId()))
			.findFirst().orElseThrow();
		assertThat(other.version()).as("the build's version, filtered in by Maven")
			.isEqualTo(StoredFormats.CURRENT.version())
			.matches("\\d+\\.\\d+\\.\\d+.*");
		assertThat(other.reads()).isEqualTo(Map.of("tasks", 2, "limiters", 1));
		assertThat(other.writes()).isEqualTo(Map.of("tasks", 2, "limiters", 1));
		assertThat(other.startedAt()).isAfter(Instant.EPOCH).isBefore(other.expiresAt());
		List<?> time = (List<?>) redis.node().call("TIME");
		Instant redisNow = Instant.ofEpochSecond(Long.parseLong((String) time.get(0)),
				Long.parseLong((String) time.get(1)) * 1000);
		assertThat(Duration.between(redisNow, other.expiresAt())).as("three default intervals at most, from now")
			.isLessThanOrEqualTo(Duration.ofSeconds(30));
		assertThat(first.writeFormats()).isEqualTo(Map.of("tasks", 2, "limiters", 1));

		clients.close(second);

		assertThat(ids(first.fleet())).as("withdrawn at close, not left to expire").containsExactly(first.getClientId());
	}

	@Test
	void aClientThatStopsWithoutClosingLeavesAfterItsExpiry() throws Exception {
		Warden warden = clients.open(redis.node());
		member("killed", StoredFormats.CURRENT, SHORT).announce().join();
		assertThat(ids(warden.fleet())).contains("killed");

		Eventually.await("the stopped member's expiry", () -> !ids(warden.fleet()).contains("killed"));

		assertThat(ids(warden.fleet())).containsExactly(warden.getClientId());
	}

	@Test
	void theRegistryExpiresWhenNoInstanceLives() throws Exception {
		member("killed", StoredFormats.CURRENT, SHORT).announce().join();
		for (String key : new String[] { INSTANCES, EXPIRY }) {
			assertThat((Long) redis.node().call("PTTL", key)).as(key).isPositive().isLessThanOrEqualTo(3001);
		}
		Eventually.await("the keys' expiry", () -> (Long) redis.node().call("EXISTS", INSTANCES, EXPIRY) == 0);

		Warden warden = clients.open(redis.node(), options -> options.fleetAnnounceInterval(Duration.ofSeconds(2)));
		for (String key : new String[] { INSTANCES, EXPIRY }) {
			assertThat((Long) redis.node().call("PTTL", key)).as(key).isPositive().isLessThanOrEqualTo(6001);
		}
		clients.close(warden);
		assertThat(redis.node().call("EXISTS", INSTANCES, EXPIRY)).as("deleted with the last member").isEqualTo(0L);
	}

	@Test
	void expiredMembersAreDroppedAHundredAtATime() throws Exception {
		Fleet live = member("live", StoredFormats.CURRENT, Duration.ofSeconds(10));
		live.announce().join();
		// Sent together, each live for 3 s: more than one call's worth of them is left to drop.
		List<java.util.concurrent.CompletableFuture<List<FleetMember>>> announced = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			announced.add(member("gone-" + i, StoredFormats.CURRENT, SHORT).announce());
		}
		announced.forEach(java.util.concurrent.CompletableFuture::join);
		Eventually.await("the 200 expiries", () -> live.members().size() == 1);
		long left = (Long) redis.node().call("HLEN", INSTANCES);
		assertThat(left).as("expired, not yet dropped").isGreaterThan(101);

		live.announce().join();
		assertThat(redis.node().call("HLEN", INSTANCES)).as("a hundred dropped").isEqualTo(left - 100);
		assertThat(redis.node().call("ZCARD", EXPIRY)).isEqualTo(left - 100);
		live.announce().join();
		assertThat(redis.node().call("HLEN", INSTANCES)).isEqualTo(1L);
		assertThat(redis.node().call("ZCARD", EXPIRY)).isEqualTo(1L);
	}

	@Test
	void theFormatWrittenIsTheNewestEveryLiveMemberReads(CapturedOutput output) throws Exception {
		Fleet newer = member("newer", formats("2.0.0", 2), LONG);
		assertThat(newer.writeFormat(Family.TASKS)).as("before any announcement: the floor").isEqualTo(1);
		newer.announce().join();
		assertThat(newer.writeFormat(Family.TASKS)).as("alone").isEqualTo(2);
		assertThat(newer.writeFormat(Family.LIMITERS)).isEqualTo(1);

		member("reads-two", formats("2.0.0", 2), LONG).announce().join();
		member("reads-one", formats("1.0.0", 1), SHORT).announce().join();
		assertThat(ids(newer.announce().join())).containsExactlyInAnyOrder("newer", "reads-two", "reads-one");
		assertThat(newer.writeFormat(Family.TASKS)).as("while a member reads only format 1").isEqualTo(1);
		assertThat(newer.writeFormat(Family.LIMITERS)).isEqualTo(1);
		assertThat(output).contains("Warden instance reads-one (version 1.0.0) reads tasks stored formats only up to 1, "
				+ "and this instance (version 2.0.0) writes format 2 by default")
			.contains("Deploy version 2.0.0 or later there");

		Eventually.await("the expiry of the member that reads format 1", () -> {
			newer.announce().join();
			return newer.writeFormat(Family.TASKS) == 2;
		});
		assertThat(output).contains("Warden writes tasks in stored format 2 from now on (was 1): every live instance reads it");

		// Nothing is asked of it while live: it may expire at once.
		member("expired", formats("1.0.0", 1), Duration.ofMillis(200)).announce().join();
		Eventually.await("its expiry", () -> !ids(newer.members()).contains("expired"));
		assertThat(ids(newer.announce().join())).doesNotContain("expired");
		assertThat(newer.writeFormat(Family.TASKS)).as("an expired member does not count").isEqualTo(2);
	}

	@Test
	void aMemberThatReadsNewerFormatsIsReportedOnce(CapturedOutput output) {
		member("reads-three", formats("3.0.0", 3), LONG).announce().join();
		Fleet current = member("current", StoredFormats.CURRENT, LONG);
		current.announce().join();
		current.announce().join();

		assertThat(current.writeFormat(Family.TASKS)).isEqualTo(StoredFormats.TASKS);
		assertThat(count(output, "Warden instance reads-three (version 3.0.0) reads tasks stored formats up to 3, newer"))
			.isEqualTo(1);
	}

	/**
	 * A later version may announce more: fields and families this one does not know are left out, and
	 * a family it does not announce counts as read in format 1.
	 */
	@Test
	void anAnnouncementIsReadAsFarAsThisVersionKnowsIt() {
		List<?> time = (List<?>) redis.node().call("TIME");
		long inAMinute = Long.parseLong((String) time.get(0)) * 1000 + 60_000;
		redis.node().call("HSET", INSTANCES, "later", "version=9.1.0;reads=limiters:3,queues:4;writes=limiters:1;"
				+ "layout=compact;started=1000;");
		redis.node().call("ZADD", EXPIRY, Long.toString(inAMinute), "later");
		Fleet newer = member("newer", new StoredFormats("9.0.0", Map.of(Family.TASKS, 2, Family.LIMITERS, 2),
				Map.of(Family.TASKS, 2, Family.LIMITERS, 2)), LONG);

		FleetMember later = newer.announce().join().stream().filter(member -> member.clientId().equals("later"))
			.findFirst().orElseThrow();

		assertThat(later.version()).isEqualTo("9.1.0");
		assertThat(later.reads()).isEqualTo(Map.of("limiters", 3, "queues", 4));
		assertThat(later.startedAt()).isEqualTo(Instant.ofEpochMilli(1000));
		assertThat(later.expiresAt()).isEqualTo(Instant.ofEpochMilli(inAMinute));
		assertThat(newer.writeFormat(Family.TASKS)).as("tasks not announced: format 1").isEqualTo(1);
		assertThat(newer.writeFormat(Family.LIMITERS)).isEqualTo(2);
	}

	@Test
	void aFailedAnnouncementIsOneWarningAndNeverFailsTheClient(CapturedOutput output) {
		// A user refused the registry's keys.
		redis.node().call("ACL", "SETUSER", "nofleet", "on", ">secret", "~warden:task:*", "&*", "+@all");
		Warden warden = clients.open(clients.redisClient(redis.node(), "nofleet", "secret"));
		warden.getDelayedQueue("jobs", String.class).schedule("t", "x", Duration.ofHours(1));
		assertThat(warden.getDelayedQueue("jobs", String.class).stats().pending()).as("a client all the same")
			.isEqualTo(1);
		assertThat(count(output, "Warden client " + warden.getClientId() + " could not announce itself")).isEqualTo(1);

		RedisEngine refused = RedisEngine.connect(clients.redisClient(redis.node(), "nofleet", "secret"), "nofleet",
				Duration.ofSeconds(5));
		engines.add(refused);
		Fleet fleet = new Fleet(refused, "refused", StoredFormats.CURRENT, LONG, Fleet.DEFAULT_NAMESPACE);
		for (int i = 0; i < 3; i++) {
			fleet.announceQuietly().join();
		}
		assertThat(count(output, "Warden client refused could not announce itself")).as("then DEBUG").isEqualTo(1);
		assertThat(output).contains("NOPERM");

		redis.node().call("ACL", "SETUSER", "nofleet", "~warden:{fleet}:*");
		fleet.announceQuietly().join();
		assertThat(output).contains("Warden client refused announces itself to the instances on its Redis again");
		assertThat(ids(warden.fleet())).contains("refused");
		fleet.close();
	}

	@Test
	void theRegistrysKeysShareOneClusterSlot() {
		assertThat(INSTANCES).isEqualTo("warden:{fleet}:instances");
		assertThat(SlotHash.getSlot(INSTANCES)).isEqualTo(SlotHash.getSlot(EXPIRY));
		assertThat(Fleet.instancesKey("other")).isEqualTo("other:{fleet}:instances");
	}

	/** A member announced on an engine of its own, never started: it announces when the test says. */
	private Fleet member(String clientId, StoredFormats formats, Duration interval) {
		return new Fleet(engine(), clientId, formats, interval, Fleet.DEFAULT_NAMESPACE);
	}

	private RedisEngine engine() {
		if (engines.isEmpty()) {
			engines.add(RedisEngine.connect(clients.redisClient(redis.node()), "fleet-tests", Duration.ofSeconds(5)));
		}
		return engines.get(0);
	}

	/** A build that reads and writes tasks in {@code tasks}, limiters in format 1. */
	private static StoredFormats formats(String version, int tasks) {
		return new StoredFormats(version, Map.of(Family.TASKS, tasks), Map.of(Family.TASKS, tasks));
	}

	private static List<String> ids(List<FleetMember> members) {
		return members.stream().map(FleetMember::clientId).toList();
	}

	private static int count(CapturedOutput output, String text) {
		Matcher matcher = Pattern.compile(Pattern.quote(text)).matcher(output.getAll());
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

}
