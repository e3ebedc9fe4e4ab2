package dev.warden;

import java.time.Instant;
import java.util.Map;

/**
 * One live Warden client on a Redis, as it announced itself: every client announces its version and
 * the stored formats it reads and writes when it starts and every
 * {@linkplain Warden.Builder#fleetAnnounceInterval announce interval}, and is live until three
 * intervals have passed without one (by Redis's clock) or it is closed. See {@link Warden#fleet()}.
 *
 * @param clientId the client's id
 * @param version the Warden version it runs ({@code unknown} when its build did not say)
 * @param reads the highest stored format it reads, per family ({@code tasks}, {@code limiters}); it
 * reads every format from 1 to it
 * @param writes the stored format it writes now, per family: the highest that every live client reads
 * @param startedAt when it first announced itself, by Redis's clock
 * @param expiresAt when it stops counting as live unless it announces itself again, by Redis's clock
 */
public record FleetMember(String clientId, String version, Map<String, Integer> reads, Map<String, Integer> writes,
		Instant startedAt, Instant expiresAt) {

	/**
	 * A member as announced, its format maps copied.
	 * @param clientId the client's id
	 * @param version the Warden version it runs ({@code unknown} when its build did not say)
	 * @param reads the highest stored format it reads, per family ({@code tasks}, {@code limiters}); it
	 * reads every format from 1 to it
	 * @param writes the stored format it writes now, per family: the highest that every live client reads
	 * @param startedAt when it first announced itself, by Redis's clock
	 * @param expiresAt when it stops counting as live unless it announces itself again, by Redis's clock
	 */
	public FleetMember {
		reads = Map.copyOf(reads);
		writes = Map.copyOf(writes);
	}

}
