package dev.warden.autoconfigure;

import dev.warden.Warden;
import dev.warden.task.interceptor.DelayedTaskRegistrar;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Logs one INFO line once the application has started, after the annotated queues' consumers:
 * this client's id, where Redis is, the queues consumed here and the main settings, so an operator
 * can see from the log what this instance does; and one WARN per deprecated property the
 * application sets, naming the property that replaces it.
 */
final class WardenStartupReport implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(Warden.class);

	private final Warden warden;

	private final String topology;

	private final WardenProperties properties;

	private volatile boolean running;

	WardenStartupReport(Warden warden, String topology, WardenProperties properties) {
		this.warden = warden;
		this.topology = topology;
		this.properties = properties;
	}

	@Override
	public void start() {
		running = true;
		properties.deprecatedInUse().forEach((name, replacement) -> logger.warn("Property {} is deprecated and will "
				+ "be removed in a later release: set {} instead (until then it is read as that one)", name,
				replacement));
		WardenProperties.DelayedTask tasks = properties.getDelayedTask();
		logger.info("Warden client {} on {}: consuming queues {}; command timeout {}, watchdog {}, namespace '{}', "
				+ "lock key prefix '{}', task concurrency {}, visibility timeout {}, max attempts {}, claim-ahead {}, "
				+ "shutdown grace {}", warden.getClientId(), topology, warden.consumedQueues(),
				properties.getCommandTimeout(), properties.getLock().getWatchdogTimeout(), warden.getNamespace(),
				properties.lockKeyPrefix(), tasks.getConcurrency(),
				tasks.getVisibilityTimeout(), tasks.getMaxAttempts(), tasks.getClaimAhead(), tasks.getShutdownGrace());
	}

	@Override
	public void stop() {
		running = false;
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	/** After the consumers of annotated queues have started. */
	@Override
	public int getPhase() {
		return DelayedTaskRegistrar.PHASE + 1;
	}

}
