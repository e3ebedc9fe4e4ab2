package dev.warden.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code warden} health indicator (Spring Boot 4): UP when Redis answered {@code PING} on both of
 * the client's connections at the last background check ({@link dev.warden.actuate.HealthMonitor}), DOWN
 * with the reason when not or when a connection was lost since; it answers at once, never waiting on
 * Redis. Its details
 * give the client's id, the slower answer's time, and the queues consumed here that hold dead
 * letters; with {@code warden.health.dead-letter-status} set, such queues report that status (for
 * example DEGRADED) instead of UP.
 */
public class WardenHealthIndicator extends AbstractHealthIndicator {

	private final WardenAdmin admin;

	private final @Nullable String deadLetterStatus;

	/**
	 * @param admin checks Redis and reads the queues' counts
	 * @param deadLetterStatus the status while a queue consumed here holds dead letters, or
	 * {@code null} for UP
	 */
	public WardenHealthIndicator(WardenAdmin admin, @Nullable String deadLetterStatus) {
		super("Warden health check failed");
		this.admin = admin;
		this.deadLetterStatus = deadLetterStatus;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		WardenAdmin.HealthCheck check = admin.health();
		builder.status(check.status(deadLetterStatus)).withDetails(check.details());
	}

}
