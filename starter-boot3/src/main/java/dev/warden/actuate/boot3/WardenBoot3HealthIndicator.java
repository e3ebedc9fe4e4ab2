package dev.warden.actuate.boot3;

import dev.warden.actuate.WardenAdmin;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code warden} health indicator on Spring Boot 3.5, whose health API lives in another package
 * than Boot 4's: the same check as {@link dev.warden.actuate.WardenHealthIndicator}. UP when Redis
 * answered {@code PING} on both of the client's connections at the last background check, DOWN with
 * the reason when not or when a connection was lost since, never waiting on Redis; {@code warden.health.dead-letter-status} while a queue consumed here holds
 * dead letters, when set.
 */
public class WardenBoot3HealthIndicator extends AbstractHealthIndicator {

	private final WardenAdmin admin;

	private final @Nullable String deadLetterStatus;

	/**
	 * @param admin checks Redis and reads the queues' counts
	 * @param deadLetterStatus the status while a queue consumed here holds dead letters, or
	 * {@code null} for UP
	 */
	public WardenBoot3HealthIndicator(WardenAdmin admin, @Nullable String deadLetterStatus) {
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
