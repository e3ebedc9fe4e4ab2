package dev.warden;

import java.time.Duration;
import java.time.Instant;

import dev.warden.redis.LuaScript;
import dev.warden.redis.RedisEngine;
import dev.warden.task.redis.RedisDelayedQueue;
import io.lettuce.core.ScriptOutputType;

/**
 * Redis's clock as a test moves it, for a client built with {@link Warden.Builder#testClock(boolean)}:
 * every time that client's tasks read from Redis (due times, backoffs, visibility deadlines,
 * recurring occurrences, fair-lock and permit deadlines) is Redis's {@code TIME} plus an offset kept
 * in Redis, at {@value LuaScript#CLOCK_OFFSET_KEY} ({@code <namespace>:test:clock-offset} in
 * another namespace than {@code warden}), so that every test-clock client of that Redis and
 * namespace sees the same time. Moving it forward makes tasks due at once. Lock leases, which Redis expires
 * itself, keep Redis's own time.
 * <p>
 * {@code warden-test}'s {@code TaskClock} builds on this to run what falls due, in due order, and
 * report what ran; most tests use that.
 */
public final class TestClock {

	private static final LuaScript ADVANCE = LuaScript.load(TestClock.class, "test-clock-advance.lua");

	private final RedisEngine engine;

	TestClock(RedisEngine engine) {
		this.engine = engine;
	}

	/** {@return the time as the client's scripts read it now} */
	public Instant now() {
		return Instant.ofEpochMilli(engine.await(engine.clockMillis(), "Redis TIME"));
	}

	/**
	 * Moves the clock forward. Consumers notice at their next claim; {@link #wake(String)} makes that
	 * at once.
	 * @param by how far, to the millisecond; zero or positive
	 * @return the time now, moved
	 */
	public Instant advance(Duration by) {
		if (by == null || by.isNegative()) {
			throw new IllegalArgumentException("The clock moves forward only: " + by);
		}
		if (!by.isZero()) {
			engine.await(engine.eval(ADVANCE, ScriptOutputType.INTEGER,
					new String[] { engine.namespace().clockOffsetKey() }, Long.toString(by.toMillis())),
					"test clock advance");
		}
		return now();
	}

	/** Sets the clock back to Redis's own time. */
	public void reset() {
		engine.await(engine.commands().del(engine.namespace().clockOffsetKey()), "test clock reset");
	}

	/**
	 * Makes every consumer of a queue, on every client, claim its due tasks now rather than at the
	 * time it planned by the clock before it moved.
	 * @param queue the queue's name
	 */
	public void wake(String queue) {
		engine.await(engine.commands().publish(RedisDelayedQueue.wakeChannel(engine, queue), "0"),
				"wake-up of '" + queue + "'");
	}

}
