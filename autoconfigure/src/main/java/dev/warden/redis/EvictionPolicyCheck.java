package dev.warden.redis;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.warden.CheckMode;
import dev.warden.WardenConfigurationException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Redis's {@code maxmemory-policy} when Warden connects, and again after each reconnect (a
 * fail-over may land on a master configured otherwise), and says what an evicting policy breaks: a
 * held lock's key evicted is a second holder, a pending task's evicted is a task that never runs.
 * Under {@code noeviction} it says nothing. A Redis that refuses {@code CONFIG} (a managed service,
 * an ACL) is said to be unchecked, once.
 */
public final class EvictionPolicyCheck {

	private static final Logger logger = LoggerFactory.getLogger(EvictionPolicyCheck.class);

	private final RedisEngine engine;

	private final CheckMode mode;

	/** The policy last reported, so that each is reported once. */
	private volatile @Nullable String reported;

	/**
	 * @param engine the connections to ask on
	 * @param mode what to do when Redis evicts
	 */
	public EvictionPolicyCheck(RedisEngine engine, CheckMode mode) {
		this.engine = engine;
		this.mode = mode;
	}

	/**
	 * Checks at startup, waiting for the answer within the command timeout.
	 * @throws WardenConfigurationException in {@link dev.warden.CheckMode#FAIL} when Redis evicts
	 */
	public void checkNow() {
		if (mode == CheckMode.IGNORE) {
			return;
		}
		String policy;
		try {
			policy = engine.await(policy(), "CONFIG GET maxmemory-policy");
		}
		catch (RuntimeException ex) {
			unchecked(ex);
			return;
		}
		if (evicts(policy) && mode == CheckMode.FAIL) {
			throw new WardenConfigurationException("Redis evicts keys under memory pressure (maxmemory-policy " + policy
					+ "), which can take Warden's locks and tasks, and warden.eviction-policy-check is fail",
					"Set maxmemory-policy to noeviction on this Redis, give Warden a Redis of its own, or set "
							+ "warden.eviction-policy-check=warn to start anyway");
		}
		report(policy);
	}

	/** Checks again without waiting, after a reconnect; logs what it finds. */
	public void checkLater() {
		if (mode == CheckMode.IGNORE) {
			return;
		}
		policy().whenComplete((policy, failure) -> {
			if (failure != null) {
				unchecked(failure);
			}
			else {
				report(policy);
			}
		});
	}

	private CompletableFuture<String> policy() {
		return engine.configGet("maxmemory-policy")
			.thenApply(config -> Objects.requireNonNullElse(config.get("maxmemory-policy"), "noeviction"));
	}

	private void report(String policy) {
		if (policy.equals(reported)) {
			return;
		}
		reported = policy;
		if (evicts(policy)) {
			logger.warn(message(policy));
		}
	}

	private void unchecked(Throwable failure) {
		if ("?".equals(reported)) {
			return;
		}
		reported = "?";
		logger.warn("Could not read Redis's maxmemory-policy ({}): Warden cannot tell whether Redis may evict its "
				+ "locks and tasks under memory pressure; make sure it is noeviction", failure.getMessage());
	}

	/** Whether Redis evicts keys under {@code policy}. */
	public static boolean evicts(String policy) {
		return !"noeviction".equalsIgnoreCase(policy);
	}

	/** What an evicting policy breaks, and what to do. */
	static String message(String policy) {
		String what = policy.startsWith("volatile") ? "keys with an expiry go first, and every leased lock has one"
				: "any key may go, locks and tasks among them";
		return "Redis evicts keys under memory pressure (maxmemory-policy " + policy + ": " + what + "). An evicted "
				+ "lock lets a second holder in, an evicted task never runs. Set maxmemory-policy to noeviction on "
				+ "this Redis, or give Warden a Redis of its own; warden.eviction-policy-check=fail refuses to start "
				+ "instead";
	}

}
