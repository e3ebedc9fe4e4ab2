package dev.warden.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.warden.RedisMemory;
import dev.warden.Warden;
import dev.warden.task.QueueStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows, without asking Redis when asked, whether Warden's Redis answers: a background check every
 * interval sends {@code PING} on both of the client's connections (with a timeout of its own, not
 * the command timeout) and reads the dead letters of the queues consumed here; between checks, a
 * connection Lettuce reports lost turns the status DOWN at once. A health indicator reads
 * {@link #current()}, which never waits on Redis, so a probe gets its answer in milliseconds while
 * Redis is gone. The first check runs when the monitor is made.
 */
public final class HealthMonitor implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(HealthMonitor.class);

	private final Warden warden;

	private final Duration timeout;

	private final double memoryThreshold;

	private final String memoryStatus;

	private final ScheduledExecutorService checks;

	private volatile WardenAdmin.HealthCheck last;

	/**
	 * Runs the first check, then one every {@code interval}.
	 * @param warden the client
	 * @param interval the time between checks
	 * @param timeout how long one check waits for Redis's answers
	 * @param memoryThreshold the share of {@code maxmemory} in use from which {@code memoryStatus} is
	 * reported
	 * @param memoryStatus the status reported near {@code maxmemory}
	 */
	public HealthMonitor(Warden warden, Duration interval, Duration timeout, double memoryThreshold,
			String memoryStatus) {
		this.warden = warden;
		this.timeout = timeout;
		this.memoryThreshold = memoryThreshold;
		this.memoryStatus = memoryStatus;
		this.last = WardenAdmin.HealthCheck.down(warden.getClientId(), "Not checked yet", Instant.now(), Map.of());
		check();
		this.checks = Executors.newSingleThreadScheduledExecutor(runnable -> {
			Thread thread = new Thread(runnable, "warden-health-" + warden.getClientId());
			thread.setDaemon(true);
			return thread;
		});
		checks.scheduleWithFixedDelay(this::check, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** {@return what the last check found, turned DOWN when a connection has been lost since; never waits on Redis} */
	public WardenAdmin.HealthCheck current() {
		WardenAdmin.HealthCheck check = last;
		if (check.up() && !warden.isConnected()) {
			return lost(check);
		}
		return check;
	}

	private WardenAdmin.HealthCheck lost(WardenAdmin.HealthCheck previous) {
		return WardenAdmin.HealthCheck.down(warden.getClientId(), "The connection to Redis is lost; reconnecting",
				Instant.now(), previous.deadLetters());
	}

	/** One check: what the status is now. Runs on the monitor's thread (the first on the caller's). */
	void check() {
		WardenAdmin.HealthCheck previous = last;
		try {
			if (!warden.isConnected()) {
				// Nothing is sent while Lettuce reconnects: no PING is left buffered for later.
				last = lost(previous);
				return;
			}
			long micros = warden.pingAsync(timeout).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
			last = withMemory(WardenAdmin.HealthCheck.up(warden.getClientId(), micros, Instant.now(),
					deadLetters(previous)), previous);
		}
		catch (ExecutionException ex) {
			last = WardenAdmin.HealthCheck.down(warden.getClientId(), String.valueOf(ex.getCause().getMessage()),
					Instant.now(), previous.deadLetters());
		}
		catch (TimeoutException | RuntimeException ex) {
			last = WardenAdmin.HealthCheck.down(warden.getClientId(), "Redis did not answer: " + ex, Instant.now(),
					previous.deadLetters());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (previous.up() != last.up() && !"Not checked yet".equals(previous.reason())) {
			if (last.up()) {
				logger.info("Redis answers again: Warden's health is UP");
			}
			else {
				logger.warn("Warden's health is DOWN: {}", last.reason());
			}
		}
	}

	/** The check with Redis's memory figures (those of the previous check when they cannot be read). */
	private WardenAdmin.HealthCheck withMemory(WardenAdmin.HealthCheck check, WardenAdmin.HealthCheck previous) {
		RedisMemory memory;
		try {
			memory = warden.memoryAsync(timeout).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			memory = previous.memory();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			memory = previous.memory();
		}
		if (memory == null) {
			return check;
		}
		return check.withMemory(memory, (memory.maxMemory() > 0 && memory.usage() >= memoryThreshold) ? memoryStatus : null);
	}

	/**
	 * The share of {@code maxmemory} Redis uses, as last read; 0 without a limit, NaN before the
	 * first reading.
	 * @return the share in use, 0 or NaN as above
	 */
	public double memoryUsage() {
		RedisMemory memory = last.memory();
		return (memory != null) ? memory.usage() : Double.NaN;
	}

	/** The dead letters of the queues consumed here; those of the previous check when they cannot be read. */
	private Map<String, Long> deadLetters(WardenAdmin.HealthCheck previous) {
		try {
			Map<String, Long> dead = new TreeMap<>();
			for (QueueStats stats : warden.queueStats(warden.consumedQueues())) {
				if (stats.deadLetters() > 0) {
					dead.put(stats.queue(), stats.deadLetters());
				}
			}
			return dead;
		}
		catch (RuntimeException ex) {
			return previous.deadLetters();
		}
	}

	@Override
	public void close() {
		checks.shutdownNow();
	}

}
