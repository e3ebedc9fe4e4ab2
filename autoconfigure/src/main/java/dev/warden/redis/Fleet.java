package dev.warden.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.warden.FleetMember;
import dev.warden.redis.StoredFormats.Family;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Warden instances that share one Redis, and the stored formats this one writes because of
 * them. Each instance announces its version and, per family, the highest stored format it reads and
 * the one it writes: at start (before its client is returned, so that it never writes what a live
 * instance cannot read) and every announce interval, on its engine's scheduler thread. An
 * announcement holds for {@value #LEASE_INTERVALS} intervals by Redis's clock; a clean shutdown
 * withdraws it at once.
 * <p>
 * The registry is two keys in one hash slot, {@code <namespace>:{fleet}:instances} (a hash: client
 * id to announcement) and {@code <namespace>:{fleet}:expiry} (a zset: client id to expiry). Each
 * announcement drops up to {@value #CLEANUP_BATCH} expired members and sets both keys to expire
 * with the member that lives longest, so the registry is bounded and vanishes when no instance
 * lives.
 * <p>
 * The format this instance writes of a family is the lower of its own default and the highest that
 * every live member reads, chosen again at each announcement: a newer format is written only once
 * every live instance reads it. Until its first announcement succeeds, and while a member announced
 * no format of a family, it writes {@link StoredFormats#FLOOR}, which every version reads. A failed
 * announcement is logged once at WARN (then at DEBUG until one succeeds) and keeps the last choice.
 */
public final class Fleet implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Fleet.class);

	/** The namespace of the registry's keys until Warden's namespace is configurable. */
	public static final String DEFAULT_NAMESPACE = "warden";

	/** How many announce intervals an announcement holds. */
	public static final int LEASE_INTERVALS = 3;

	/** How many expired members one announcement drops at most. */
	public static final int CLEANUP_BATCH = 100;

	/**
	 * How long closing waits for the withdrawal at most (or the command timeout, when shorter): a
	 * Redis that does not answer must not hold a shutdown up, and the announcement expires anyway.
	 */
	static final long WITHDRAW_WAIT_MILLIS = 2_000;

	private static final LuaScript ANNOUNCE = LuaScript.load(Fleet.class, "fleet-announce.lua", "fleet-live.lua");

	private static final LuaScript MEMBERS = LuaScript.load(Fleet.class, "fleet-members.lua", "fleet-live.lua");

	private static final LuaScript LEAVE = LuaScript.load(Fleet.class, "fleet-leave.lua");

	private final RedisEngine engine;

	private final String clientId;

	private final StoredFormats formats;

	private final Duration interval;

	private final String[] keys;

	/** The formats written now, per family; replaced whole. */
	private volatile Map<Family, Integer> writing;

	/** Whether an announcement succeeded yet: changes of format are logged from the second on. */
	private boolean observed;

	/** When this instance first announced itself, ms by Redis's clock; 0 before. */
	private volatile long startedAt;

	/** How many members were live at the last announcement. */
	private volatile int liveInstances;

	/** {@code clientId:family} of the members already reported as reading older or newer formats. */
	private final Set<String> reported = new HashSet<>();

	private final AtomicBoolean failing = new AtomicBoolean();

	private final AtomicBoolean announcing = new AtomicBoolean();

	/** Guards {@link #closed} against an announcement sent after the withdrawal. */
	private final Object sending = new Object();

	private boolean closed;

	private @Nullable ScheduledFuture<?> schedule;

	/**
	 * @param engine the connections to announce on
	 * @param clientId this instance's client id
	 * @param formats the formats this build reads and writes, and its version
	 * @param interval how often to announce
	 * @param namespace the start of the registry's keys ({@value #DEFAULT_NAMESPACE})
	 */
	public Fleet(RedisEngine engine, String clientId, StoredFormats formats, Duration interval, String namespace) {
		this.engine = engine;
		this.clientId = clientId;
		this.formats = formats;
		this.interval = interval;
		this.keys = new String[] { instancesKey(namespace), expiryKey(namespace) };
		Map<Family, Integer> floor = new EnumMap<>(Family.class);
		for (Family family : Family.values()) {
			floor.put(family, StoredFormats.FLOOR);
		}
		this.writing = Collections.unmodifiableMap(floor);
	}

	/** The registry's hash of announcements: client id to announcement. */
	public static String instancesKey(String namespace) {
		return namespace + ":{fleet}:instances";
	}

	/** The registry's zset of expiries: client id to when it stops counting as live (ms, Redis's clock). */
	public static String expiryKey(String namespace) {
		return namespace + ":{fleet}:expiry";
	}

	/**
	 * Announces this instance now, waiting within the command timeout, then every interval. Never
	 * throws: a failure is logged, and the next interval tries again.
	 */
	public void start() {
		try {
			Map<Family, Integer> announced = writing;
			engine.await(announce(), "the fleet announcement");
			if (!writing.equals(announced)) {
				// Announced before it knew the fleet, as writing the floor: the registry shows what it
				// writes from now on.
				engine.await(announce(), "the fleet announcement");
			}
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
		synchronized (sending) {
			if (!closed) {
				schedule = engine.scheduler().scheduleWithFixedDelay(this::announceQuietly, interval.toNanos(),
						interval.toNanos(), TimeUnit.NANOSECONDS);
			}
		}
	}

	/**
	 * Announces this instance once and chooses the formats to write from the live members.
	 * @return the live members, this one included
	 */
	public CompletableFuture<List<FleetMember>> announce() {
		String announcement = "version=" + clean(formats.version()) + ";reads=" + perFamily(formats::reads)
				+ ";writes=" + perFamily(writing::get) + ";";
		CompletableFuture<List<Object>> reply = engine.eval(ANNOUNCE, ScriptOutputType.MULTI, keys, clientId,
				announcement, Long.toString(LEASE_INTERVALS * interval.toMillis()), Long.toString(startedAt),
				Integer.toString(CLEANUP_BATCH));
		return RedisEngine.map(reply, values -> {
			if (startedAt == 0) {
				startedAt = (Long) values.get(1);
			}
			List<FleetMember> members = members(values);
			observe(members);
			if (failing.compareAndSet(true, false)) {
				logger.info("Warden client {} announces itself to the instances on its Redis again", clientId);
			}
			return members;
		});
	}

	/**
	 * Announces like {@link #announce()}, unless this instance stopped or an announcement is still
	 * under way; a failure is logged.
	 * @return completes when the announcement is done, never exceptionally
	 */
	public CompletableFuture<Void> announceQuietly() {
		try {
			synchronized (sending) {
				if (closed || !announcing.compareAndSet(false, true)) {
					return CompletableFuture.completedFuture(null);
				}
				CompletableFuture<List<FleetMember>> announced = engine.withTimeout(announce(), "the fleet announcement");
				return announced.handle((members, failure) -> {
					announcing.set(false);
					if (failure != null) {
						failed(failure);
					}
					return null;
				});
			}
		}
		catch (RuntimeException ex) {
			// Never out of the scheduler's task: an exception would cancel the next announcements.
			announcing.set(false);
			failed(ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	/**
	 * Reads the live members from Redis now.
	 * @return the members whose announcement holds, this one included while it is live
	 * @throws dev.warden.RedisUnavailableException when Redis cannot be reached
	 */
	public List<FleetMember> members() {
		List<Object> reply = engine.await(engine.eval(MEMBERS, ScriptOutputType.MULTI, keys), "the fleet's members");
		return members(reply);
	}

	/**
	 * The format of a family this instance writes now: the lower of its own default and the highest
	 * format every live member reads, as chosen at the last announcement.
	 * @param family the family
	 * @return the format
	 */
	public int writeFormat(Family family) {
		return writing.get(family);
	}

	/** The formats this instance writes now, per family. */
	public Map<Family, Integer> writeFormats() {
		return writing;
	}

	/** How many members were live at the last announcement, this one included; 0 before the first. */
	public int liveInstances() {
		return liveInstances;
	}

	/** The formats this build reads and writes, and its version. */
	public StoredFormats formats() {
		return formats;
	}

	/**
	 * Stops announcing and withdraws this instance's announcement, waiting at most
	 * {@value #WITHDRAW_WAIT_MILLIS} ms; when that fails, the announcement expires by itself. Nothing to
	 * withdraw before {@link #start()}.
	 */
	@Override
	public void close() {
		synchronized (sending) {
			if (closed) {
				return;
			}
			closed = true;
			if (schedule == null) {
				// Never started: nothing to withdraw.
				return;
			}
			schedule.cancel(false);
		}
		if (!engine.connected()) {
			logger.debug("Warden client {} is not connected to withdraw its announcement: it expires within {}",
					clientId, interval.multipliedBy(LEASE_INTERVALS));
			return;
		}
		CompletableFuture<Long> left = engine.eval(LEAVE, ScriptOutputType.INTEGER, keys, clientId);
		try {
			left.get(Math.min(WITHDRAW_WAIT_MILLIS, engine.commandTimeout().toMillis()), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			left.cancel(false);
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			left.cancel(false);
			logger.debug("Warden client {} could not withdraw its announcement: it expires within {}", clientId,
					interval.multipliedBy(LEASE_INTERVALS), ex);
		}
	}

	private void failed(Throwable failure) {
		Throwable cause = RedisEngine.translate(failure, "the fleet announcement");
		if (failing.compareAndSet(false, true)) {
			logger.warn("Warden client {} could not announce itself to the instances on its Redis ({}): they do not "
					+ "see it, and it keeps writing the stored formats it chose last ({}). It tries again every {}",
					clientId, cause.getMessage(), perFamily(writing::get), interval);
		}
		else {
			logger.debug("Warden client {} could not announce itself again", clientId, cause);
		}
	}

	/** Chooses the formats to write from the live members, and says what changed. */
	private synchronized void observe(List<FleetMember> members) {
		Map<Family, Integer> chosen = new EnumMap<>(Family.class);
		Set<String> live = new HashSet<>();
		for (FleetMember member : members) {
			live.add(member.clientId());
		}
		for (Family family : Family.values()) {
			int own = formats.writes(family);
			int format = own;
			FleetMember limiting = null;
			for (FleetMember member : members) {
				int reads = member.reads().getOrDefault(family.key(), StoredFormats.FLOOR);
				if (reads < format) {
					format = reads;
					limiting = member;
				}
				if (!member.clientId().equals(clientId)) {
					report(member, family, reads);
				}
			}
			chosen.put(family, format);
			int before = writing.get(family);
			if (observed && before != format) {
				if (limiting != null) {
					logger.info("Warden writes {} in stored format {} from now on (was {}): instance {} (version {}) "
							+ "reads no newer one", family.key(), format, before, limiting.clientId(), limiting.version());
				}
				else {
					logger.info("Warden writes {} in stored format {} from now on (was {}): every live instance reads it",
							family.key(), format, before);
				}
			}
		}
		writing = Collections.unmodifiableMap(chosen);
		observed = true;
		liveInstances = members.size();
		reported.removeIf(key -> !live.contains(key.substring(0, key.lastIndexOf(':'))));
	}

	/** Says once per member and family that it reads older formats than this build writes, or newer ones. */
	private void report(FleetMember member, Family family, int reads) {
		int own = formats.writes(family);
		if (reads < own && reported.add(member.clientId() + ":" + family.key())) {
			logger.info("Warden instance {} (version {}) reads {} stored formats only up to {}, and this instance "
					+ "(version {}) writes format {} by default: it writes format {} while that instance is live. Deploy "
					+ "version {} or later there to have format {} written", member.clientId(), member.version(),
					family.key(), reads, formats.version(), own, reads, formats.version(), own);
		}
		else if (reads > formats.reads(family) && reported.add(member.clientId() + ":" + family.key())) {
			logger.info("Warden instance {} (version {}) reads {} stored formats up to {}, newer than this instance "
					+ "(version {}) reads ({}): the newer format is written once every live instance reads it",
					member.clientId(), member.version(), family.key(), reads, formats.version(), formats.reads(family));
		}
	}

	/** The members in a script's reply: {now, started, then client id, expiry, announcement per member}. */
	private static List<FleetMember> members(List<Object> reply) {
		List<FleetMember> members = new ArrayList<>((reply.size() - 2) / 3);
		for (int i = 2; i + 2 < reply.size(); i += 3) {
			members.add(parse((String) reply.get(i), (Long) reply.get(i + 1), (String) reply.get(i + 2)));
		}
		return members;
	}

	/**
	 * One member from its announcement: fields {@code k=v;}, unknown ones ignored (a newer version may
	 * announce more), formats below {@link StoredFormats#FLOOR} or unreadable left out.
	 */
	static FleetMember parse(String clientId, long expiresAt, String announcement) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String field : announcement.split(";")) {
			int equals = field.indexOf('=');
			if (equals > 0) {
				fields.put(field.substring(0, equals), field.substring(equals + 1));
			}
		}
		long started;
		try {
			started = Long.parseLong(fields.getOrDefault("started", "0"));
		}
		catch (NumberFormatException ex) {
			started = 0;
		}
		return new FleetMember(clientId, fields.getOrDefault("version", "unknown"), formats(fields.get("reads")),
				formats(fields.get("writes")), Instant.ofEpochMilli(started), Instant.ofEpochMilli(expiresAt));
	}

	private static Map<String, Integer> formats(@Nullable String text) {
		Map<String, Integer> formats = new LinkedHashMap<>();
		if (text == null) {
			return formats;
		}
		for (String entry : text.split(",")) {
			int colon = entry.indexOf(':');
			if (colon > 0) {
				try {
					int format = Integer.parseInt(entry.substring(colon + 1));
					if (format >= StoredFormats.FLOOR) {
						formats.put(entry.substring(0, colon), format);
					}
				}
				catch (NumberFormatException ex) {
					// Left out: read as the floor.
				}
			}
		}
		return formats;
	}

	private static String perFamily(java.util.function.Function<Family, Integer> format) {
		StringJoiner joined = new StringJoiner(",");
		for (Family family : Family.values()) {
			joined.add(family.key() + ":" + format.apply(family));
		}
		return joined.toString();
	}

	/** A value fit for an announcement field: without {@code ;}, {@code =} nor {@code ,}. */
	private static String clean(String value) {
		return value.replaceAll("[;=,]", "_");
	}

}
