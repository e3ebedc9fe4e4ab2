package dev.warden.task.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import dev.warden.json.JsonBinding;
import dev.warden.redis.RedisEngine;
import dev.warden.task.DeadLetter;
import io.lettuce.core.ScriptOutputType;

/**
 * The dead letters of one queue: reading them whole or by page, counting, requeueing and purging
 * them, a batch per script call so that no call holds Redis for long. Arguments are checked by the
 * queue.
 */
final class DeadLetters {

	/** How many dead letters one script call requeues or purges at most. */
	private static final int BATCH = 500;

	/** The latest time a script is given (epoch ms stays exact in Lua's doubles): the year 9999. */
	private static final Instant MAX_SCRIPT_INSTANT = Instant.parse("9999-12-31T23:59:59.999Z");

	private final String name;

	private final QueueKeys keys;

	private final RedisEngine engine;

	private final JsonBinding json;

	DeadLetters(String name, QueueKeys keys, RedisEngine engine, JsonBinding json) {
		this.name = name;
		this.keys = keys;
		this.engine = engine;
		this.json = json;
	}

	List<DeadLetter> all() {
		Map<String, String> letters = engine.await(engine.commands(keys.dead).hgetall(keys.dead), "dead letters of '" + name + "'");
		return letters.values()
			.stream()
			.map(this::readDeadLetter)
			.sorted(Comparator.comparing(DeadLetter::failedAt))
			.toList();
	}

	private DeadLetter readDeadLetter(String text) {
		Map<?, ?> letter = (Map<?, ?>) json.read(text, Map.class);
		Object payload = letter.get("payload");
		return new DeadLetter(String.valueOf(letter.get("id")), (payload instanceof String string) ? string : null,
				((Number) letter.get("attempts")).intValue(), String.valueOf(letter.get("error")),
				Instant.ofEpochMilli(((Number) letter.get("failedAt")).longValue()));
	}

	/** A page of dead letters, each payload cut to {@code payloadBytes} (whole with 0). */
	List<DeadLetter> page(int offset, int limit, int payloadBytes) {
		List<Object> page = engine.await(engine.eval(TaskScripts.DEAD_PAGE, ScriptOutputType.MULTI, keys.deadLetters,
				Integer.toString(offset), Integer.toString(limit), Integer.toString(payloadBytes)),
				"dead letters of '" + name + "'");
		List<DeadLetter> letters = new ArrayList<>(page.size() / 6);
		for (int i = 1; i + 5 < page.size(); i += 6) {
			letters.add(deadLetter(page, i));
		}
		return letters;
	}

	/** A dead letter's fields as the scripts return them (addDeadLetter, task-excerpt.lua), from {@code i}. */
	static DeadLetter deadLetter(List<Object> fields, int i) {
		long size = (Long) fields.get(i + 5);
		return new DeadLetter((String) fields.get(i), (size < 0) ? null : (String) fields.get(i + 4),
				((Long) fields.get(i + 2)).intValue(), (String) fields.get(i + 3),
				Instant.ofEpochMilli((Long) fields.get(i + 1)), Math.max(size, 0));
	}

	long count() {
		Long count = engine.await(engine.commands(keys.dead).hlen(keys.dead), "dead letters of '" + name + "'");
		return (count != null) ? count : 0;
	}

	long requeue(Instant failedFrom, Instant failedTo) {
		long from = epochMillis(failedFrom, "failedFrom");
		long to = epochMillis(failedTo, "failedTo");
		long requeued = 0;
		// In batches, so that no script call holds Redis for long; a batch that puts nothing back
		// (every one of its letters is pending again) ends it.
		while (true) {
			List<Long> batch = engine.await(engine.eval(TaskScripts.DEAD_REQUEUE, ScriptOutputType.MULTI,
					keys.deadLettersRequeue, Long.toString(from), Long.toString(to), Integer.toString(BATCH),
					keys.channel), "requeue of the dead letters of '" + name + "'");
			requeued += batch.get(0);
			if (batch.get(1) < BATCH || batch.get(0) == 0) {
				return requeued;
			}
		}
	}

	long purge(Instant failedBefore) {
		long before = epochMillis(failedBefore, "failedBefore");
		long purged = 0;
		while (true) {
			Long batch = engine.await(engine.eval(TaskScripts.DEAD_PURGE, ScriptOutputType.INTEGER, keys.deadLetters, "",
					Long.toString(before), Integer.toString(BATCH)), "purge of the dead letters of '" + name + "'");
			purged += (batch != null) ? batch : 0;
			if (batch == null || batch < BATCH) {
				return purged;
			}
		}
	}

	/** An instant as epoch milliseconds for a script, {@link Instant#MIN} and {@link Instant#MAX} included. */
	private static long epochMillis(Instant instant, String what) {
		if (instant == null) {
			throw new IllegalArgumentException(what + " must not be null");
		}
		if (instant.isAfter(MAX_SCRIPT_INSTANT)) {
			return MAX_SCRIPT_INSTANT.toEpochMilli();
		}
		if (instant.isBefore(Instant.EPOCH)) {
			return 0;
		}
		return instant.toEpochMilli();
	}

	boolean requeue(String taskId) {
		Long requeued = engine.await(engine.eval(TaskScripts.REQUEUE_DEAD, ScriptOutputType.INTEGER,
				keys.deadLetterRequeue, taskId, keys.channel), "requeue of task '" + taskId + "'");
		return requeued != null && requeued == 1L;
	}

	boolean delete(String taskId) {
		Long deleted = engine.await(engine.eval(TaskScripts.DEAD_PURGE, ScriptOutputType.INTEGER, keys.deadLetters,
				taskId, "0", "0"), "dead letter '" + taskId + "'");
		return deleted != null && deleted == 1L;
	}

}
