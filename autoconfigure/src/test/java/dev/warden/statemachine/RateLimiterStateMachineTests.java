package dev.warden.statemachine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.ratelimit.RateLimitDecision;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Random sequences of rate-limiter calls, at several rates on one name, checked after each call
 * against a model of the documentation's promises: a limiter never grants more than its rate and burst
 * allow, never refuses what they allow, keeps the permits in use re-expressed when used at another
 * rate, and its key lives exactly as long as it holds permits, at the rate it was last used.
 * <p>
 * The model knows Redis's time only within the bounds of a {@code TIME} read before and after each
 * call; it judges a decision only when it is the same at both ends, so the checks hold on a slow
 * machine.
 */
class RateLimiterStateMachineTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	/** The rates the handles of one name use: permits per second and burst. */
	private static final RateLimit[] RATES = { RateLimit.of(100, Duration.ofSeconds(1)).withBurst(10),
			RateLimit.of(10, Duration.ofSeconds(1)).withBurst(10), RateLimit.of(20, Duration.ofSeconds(1)).withBurst(5) };

	/** How far the model's view of a stored time may be off, µs: rounding in the script's arithmetic. */
	private static final double SLACK_MICROS = 2;

	sealed interface Operation permits Take, Look, Pause {
	}

	/** {@code decide(permits, maxWait)} on the handle at {@code RATES[rate]}. */
	record Take(int rate, int permits, long maxWaitMillis) implements Operation {
	}

	/** {@code timeUntilAvailable(permits)} on the handle at {@code RATES[rate]}. */
	record Look(int rate, int permits) implements Operation {
	}

	/** Lets Redis's clock move on by at least this much. */
	record Pause(long millis) implements Operation {
	}

	static List<Operation> generate(Random random, int steps) {
		List<Operation> operations = new ArrayList<>(steps);
		for (int i = 0; i < steps; i++) {
			int rate = random.nextInt(RATES.length);
			int permits = 1 + random.nextInt((int) Math.min(3, RATES[rate].burst()));
			switch (random.nextInt(10)) {
				case 0, 1, 2, 3 -> operations.add(new Take(rate, permits, 0));
				case 4, 5 -> operations.add(new Take(rate, permits, random.nextBoolean() ? 30 : 150));
				case 6 -> operations.add(new Look(rate, permits));
				default -> operations.add(new Pause(10 + random.nextInt(120)));
			}
		}
		return operations;
	}

	@Test
	void randomCallsAtSeveralRatesKeepEveryPromise() throws Exception {
		new StateMachine<>("rate limiter", RateLimiterStateMachineTests::generate, this::run, 60_000)
			.check(StateMachine.baseSeed(0x7a11e5L), StateMachine.sequences(8), StateMachine.steps(40));
	}

	void run(List<Operation> operations) throws Exception {
		redis.node().call("FLUSHALL");
		Warden warden = clients.open(redis.node());
		DistributedRateLimiter[] handles = new DistributedRateLimiter[RATES.length];
		for (int i = 0; i < RATES.length; i++) {
			handles[i] = warden.getRateLimiter("machine", RATES[i]);
		}
		Model model = new Model();
		int step = 0;
		for (Operation operation : operations) {
			step++;
			String at = "step " + step + " (" + operation + ")";
			if (operation instanceof Pause pause) {
				long until = redisMicros() + pause.millis() * 1000;
				for (int i = 0; i < 1_000 && redisMicros() < until; i++) {
					Thread.sleep(Math.max(1, pause.millis() / 10));
				}
			}
			else if (operation instanceof Take take) {
				RateLimit limit = RATES[take.rate()];
				long before = redisMicros();
				RateLimitDecision decision = handles[take.rate()].decide(take.permits(),
						Duration.ofMillis(take.maxWaitMillis()));
				long after = redisMicros();
				model.take(at, limit, take.permits(), take.maxWaitMillis() * 1000, before, after, decision.granted());
			}
			else if (operation instanceof Look look) {
				RateLimit limit = RATES[look.rate()];
				long before = redisMicros();
				Duration wait = handles[look.rate()].timeUntilAvailable(look.permits());
				long after = redisMicros();
				model.look(at, limit, look.permits(), before, after, wait);
			}
			model.checkKey(at);
		}
	}

	/** What the limiter holds: the time it is full again, within bounds, at the interval last used. */
	private final class Model {

		private double tatLow = Double.NEGATIVE_INFINITY;

		private double tatHigh = Double.NEGATIVE_INFINITY;

		private double interval = 1;

		/** The stored time, re-expressed at {@code to}, for a call at some time in [from, until]. */
		private void reexpress(double to, long from, long until) {
			double ratio = to / interval;
			double low = Double.POSITIVE_INFINITY;
			double high = Double.NEGATIVE_INFINITY;
			for (long now : new long[] { from, until }) {
				for (double tat : new double[] { tatLow, tatHigh }) {
					double at = (tat > now) ? now + (tat - now) * ratio : now;
					low = Math.min(low, at);
					high = Math.max(high, at);
				}
			}
			tatLow = low;
			tatHigh = high;
			interval = to;
		}

		void take(String at, RateLimit limit, int permits, long maxWaitMicros, long before, long after, boolean granted) {
			double asked = limit.intervalMicros();
			reexpress(asked, before, after);
			double burst = limit.burst() * asked;
			// The wait a grant needs: the later the stored time and the earlier the call, the longer.
			double longest = Math.max(tatHigh, before) + permits * asked - burst - before;
			double shortest = Math.max(tatLow, after) + permits * asked - burst - after;
			boolean surelyGranted = longest <= maxWaitMicros - SLACK_MICROS;
			boolean surelyRefused = shortest > maxWaitMicros + SLACK_MICROS;
			if (granted && surelyRefused) {
				throw new AssertionError(at + ": granted " + permits + " permit(s), more than " + limit
						+ " allows: the permits in use reach " + (long) (tatLow - after) + " µs ahead of now");
			}
			if (!granted && surelyGranted) {
				throw new AssertionError(at + ": refused " + permits + " permit(s) that " + limit
						+ " allows: the permits in use reach only " + (long) (tatHigh - before) + " µs ahead of now");
			}
			if (granted) {
				tatLow = Math.max(tatLow, before) + permits * asked;
				tatHigh = Math.max(tatHigh, after) + permits * asked;
			}
		}

		void look(String at, RateLimit limit, int permits, long before, long after, Duration wait) {
			double asked = limit.intervalMicros();
			reexpress(asked, before, after);
			double burst = limit.burst() * asked;
			double longest = Math.max(0, Math.max(tatHigh, before) + permits * asked - burst - before);
			double shortest = Math.max(0, Math.max(tatLow, after) + permits * asked - burst - after);
			double said = wait.toNanos() / 1000.0;
			if (said > longest + 1 + SLACK_MICROS || said < shortest - 1 - SLACK_MICROS) {
				throw new AssertionError(at + ": said the permits come in " + (long) said + " µs; the rate says between "
						+ (long) shortest + " and " + (long) longest);
			}
		}

		/** The key exists while permits are in use, and lives until they are back at the rate last used. */
		void checkKey(String at) {
			// Redis's time and the key's time to live, read at one instant.
			List<?> read = (List<?>) redis.node().call("EVAL",
					"local t = redis.call('time') return {t[1], t[2], redis.call('pttl', KEYS[1])}", "1",
					"warden:rate:{machine}");
			long now = Long.parseLong(read.get(0).toString()) * 1_000_000 + Long.parseLong(read.get(1).toString());
			long millis = ((Number) read.get(2)).longValue();
			double held = tatLow - now;
			if (held > 2_000 && millis < 0) {
				throw new AssertionError(at + ": the limiter's key is gone while permits are in use for another "
						+ (long) held + " µs");
			}
			if (millis >= 0 && millis * 1000 + 2_000 < held) {
				throw new AssertionError(at + ": the limiter's key expires in " + millis + " ms, before the permits in use"
						+ " are back at the rate last used (" + (long) (held / 1000) + " ms)");
			}
			if (millis == -1) {
				throw new AssertionError(at + ": the limiter's key has no expiry");
			}
		}

	}

	private static long redisMicros() {
		List<?> time = (List<?>) redis.node().call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

}
