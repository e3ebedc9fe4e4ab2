package dev.warden.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.LockArguments;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.RateLimitDecision;
import dev.warden.redis.KeyScan;
import dev.warden.redis.LuaScript;
import dev.warden.redis.RedisEngine;
import io.lettuce.core.ScriptOutputType;

/**
 * {@link DistributedRateLimiter} on Redis: one key per limiter, {@code <namespace>:rate:{<name>}}
 * ({@code warden:rate:{<name>}} by default), and one script call per decision ({@code rate-acquire.lua}).
 */
public final class RedisRateLimiter implements DistributedRateLimiter {

	/**
	 * The prefix of every limiter's key in the default namespace; the name is its hash tag. A
	 * client's own is its namespace's {@link dev.warden.redis.KeyNamespace#ratePrefix() rate prefix}.
	 */
	public static final String KEY_PREFIX = "warden:rate:";

	static final LuaScript ACQUIRE = LuaScript.load(RedisRateLimiter.class, "rate-acquire.lua", LuaScript.CLOCK);

	static final LuaScript RESET = LuaScript.load(RedisRateLimiter.class, "rate-reset.lua");

	private static final String LOOK_ONLY = "-1";


	private final String name;

	private final RateLimit limit;

	private final RedisEngine engine;

	private final String[] keys;

	private final String interval;

	private final String burst;

	private final String action;

	/**
	 * @param name the limiter's name
	 * @param limit the rate this handle asks for
	 * @param engine the client's engine
	 */
	public RedisRateLimiter(String name, RateLimit limit, RedisEngine engine) {
		this.name = LockArguments.requireName(name, "rate limiter");
		if (limit == null) {
			throw new IllegalArgumentException("Rate limiter '" + name + "' needs a rate limit");
		}
		this.limit = limit;
		this.engine = engine;
		this.keys = new String[] { engine.namespace().ratePrefix() + "{" + name + "}" };
		this.interval = Double.toString(limit.intervalMicros());
		this.burst = Long.toString(limit.burst());
		this.action = "rate limiter '" + name + "'";
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public RateLimit getLimit() {
		return limit;
	}

	@Override
	public boolean tryAcquire(int permits, Duration maxWait) throws InterruptedException {
		RateLimitDecision decision = decide(permits, maxWait);
		if (!decision.granted()) {
			return false;
		}
		long waitNanos = decision.delay().toNanos();
		if (waitNanos > 0) {
			// The permits are reserved: their time comes after exactly this wait, as Redis counted it.
			TimeUnit.NANOSECONDS.sleep(waitNanos);
		}
		return true;
	}

	@Override
	public RateLimitDecision decide(int permits, Duration maxWait) {
		return engine.await(decideAsync(permits, maxWait), action);
	}

	@Override
	public CompletableFuture<RateLimitDecision> decideAsync(int permits, Duration maxWait) {
		if (maxWait == null || maxWait.isNegative()) {
			throw new IllegalArgumentException("The longest wait must be zero or positive: " + maxWait);
		}
		return call(permits, Long.toString(micros(maxWait)));
	}

	@Override
	public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration maxWait) {
		return decideAsync(permits, maxWait).thenCompose(decision -> {
			if (!decision.granted() || decision.delay().isZero()) {
				return CompletableFuture.completedFuture(decision.granted());
			}
			CompletableFuture<Boolean> due = new CompletableFuture<>();
			engine.scheduler().schedule(() -> due.complete(true), decision.delay().toNanos(), TimeUnit.NANOSECONDS);
			return due;
		});
	}

	@Override
	public Duration timeUntilAvailable(int permits) {
		return engine.await(call(permits, LOOK_ONLY), action).delay();
	}

	@Override
	public long availablePermits() {
		return engine.await(call(1, LOOK_ONLY), action).available();
	}

	@Override
	public boolean reset() {
		Long deleted = engine.await(engine.eval(RESET, ScriptOutputType.INTEGER, new String[] { keys[0] }), action);
		return deleted != null && deleted > 0;
	}

	private CompletableFuture<RateLimitDecision> call(int permits, String maxWaitMicros) {
		if (permits <= 0 || permits > limit.burst()) {
			throw new IllegalArgumentException("Rate limiter '" + name + "' grants 1 to " + limit.burst()
					+ " permits at once (its burst), not " + permits);
		}
		CompletableFuture<List<Long>> reply = engine.eval(ACQUIRE, ScriptOutputType.MULTI, keys,
				Integer.toString(permits), interval, burst, maxWaitMicros);
		return RedisEngine.map(reply, values -> new RateLimitDecision(values.get(0) == 1L,
				Duration.ofNanos(values.get(1) * 1000), values.get(2)));
	}

	/** A duration in whole microseconds, rounded down; a wait too long to count is as long as can be. */
	private static long micros(Duration duration) {
		try {
			return TimeUnit.NANOSECONDS.toMicros(duration.toNanos());
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 1000;
		}
	}

	/**
	 * How many limiters whose name starts with {@code prefix} are in use now (not full), counted
	 * with {@code SCAN} (on every master of a cluster) in the engine's namespace: their keys expire
	 * once full.
	 * @param engine the client's engine
	 * @param prefix the start of the names, such as {@code "exports:"}
	 * @param max the most to count
	 * @return the count, at most {@code max}
	 */
	public static long countInUse(RedisEngine engine, String prefix, int max) {
		long[] count = new long[1];
		String pattern = KeyScan.escape(engine.namespace().ratePrefix()) + "{" + KeyScan.escape(prefix) + "*}";
		KeyScan.scan(engine, pattern, "scan for rate limiters", key -> ++count[0] < max);
		return Math.min(count[0], max);
	}

	@Override
	public String toString() {
		return "rate limiter '" + name + "' (" + limit + ")";
	}

}
