package dev.warden.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.warden.CheckMode;
import dev.warden.WardenDefaults;
import dev.warden.actuate.WardenAdmin;
import dev.warden.redis.KeyNamespace;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.TaskLimits;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of Warden. Defaults and ranges are {@link WardenDefaults}'; a value out
 * of range fails startup naming its property.
 */
@ConfigurationProperties(prefix = "warden", ignoreUnknownFields = false)
public class WardenProperties {

	/**
	 * Whether to configure Warden (its client, and the interception of annotated methods). Off (or
	 * without a Lettuce RedisConnectionFactory), @DistributedLock methods run without a lock, and
	 * the @DelayedTask methods throw IllegalStateException when called, never running in place of
	 * a schedule; one WARN line at startup says so.
	 */
	private boolean enabled = true;

	/**
	 * Id of this client in lock owner ids, unique among live clients. A random UUID by default.
	 */
	private @Nullable String clientId;

	/**
	 * How long a blocking call waits for Redis before failing with RedisUnavailableException; an
	 * asynchronous call fails after the same time.
	 */
	private Duration commandTimeout = WardenDefaults.COMMAND_TIMEOUT;

	/**
	 * How many command connections Warden opens on a standalone Redis (Sentinel's included), from 1
	 * to 16. Calls on one lock, queue or limiter share one connection and keep their order; others
	 * spread over the connections and the Lettuce I/O threads. By default one per available
	 * processor, at least 1 and at most 4. Ignored on a Redis Cluster, whose connection
	 * holds one connection per master.
	 */
	private @Nullable Integer connections;

	/**
	 * What to do when a bean calls one of its own @DistributedLock, @RateLimited or @DelayedTask
	 * methods on this, which Spring's proxy never sees (the lock is not taken, the limit not
	 * applied, the task runs at once): fail startup, warn (one WARN line per bean class), or
	 * ignore.
	 */
	private CheckMode selfInvocation = CheckMode.FAIL;

	/**
	 * What to do when Redis's maxmemory-policy lets it evict keys, which can take a held lock or a
	 * pending task: warn (one WARN line at startup, and again after a reconnect to a master with
	 * another policy), fail startup, or ignore.
	 */
	private CheckMode evictionPolicyCheck = CheckMode.WARN;

	/**
	 * Namespace of every key and channel Warden names itself: queues and recurring plans
	 * (<namespace>:task:...), rate limiters (<namespace>:rate:...), fencing counters
	 * (<namespace>_fencing:...), the test clock (<namespace>:test:clock-offset) and, unless
	 * warden.lock.key-prefix is set, the @DistributedLock keys (<namespace>:lock:...). Applications
	 * sharing one Redis take different namespaces to be kept apart by Redis ACLs; each lists and
	 * counts only its own queues. Not empty, at most 64 characters, without braces, * ? [ ] \,
	 * whitespace or control characters, else startup fails naming it. The default keeps the keys
	 * Warden always wrote.
	 */
	private String namespace = "warden";

	private final Lock lock = new Lock();

	private final DelayedTask delayedTask = new DelayedTask();

	private final RedLock redlock = new RedLock();

	private final Recurring recurring = new Recurring();

	private final RateLimit rateLimit = new RateLimit();

	private final Metrics metrics = new Metrics();

	private final Endpoint endpoint = new Endpoint();

	/** The deprecated properties set, by name, with what replaces each, in the order they were bound. */
	private final Map<String, String> deprecatedInUse = java.util.Collections.synchronizedMap(new LinkedHashMap<>());

	@SuppressWarnings("removal")
	private final Actuator actuator = new Actuator();

	{
		actuator.bind(endpoint, deprecatedInUse);
	}

	private final Health health = new Health();

	private final Dashboard dashboard = new Dashboard();

	private final Observations observations = new Observations();

	private final Test test = new Test();

	private final Fleet fleet = new Fleet();

	/**
	 * The {@code warden.enabled} property.
	 * @return its value
	 */
	public boolean isEnabled() {
		return enabled;
	}

	/**
	 * Sets the {@code warden.enabled} property.
	 * @param enabled the value
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * The {@code warden.client-id} property.
	 * @return its value
	 */
	public @Nullable String getClientId() {
		return clientId;
	}

	/**
	 * Sets the {@code warden.client-id} property.
	 * @param clientId the value
	 */
	public void setClientId(@Nullable String clientId) {
		this.clientId = clientId;
	}

	/**
	 * The {@code warden.command-timeout} property.
	 * @return its value
	 */
	public Duration getCommandTimeout() {
		return commandTimeout;
	}

	/**
	 * Sets the {@code warden.command-timeout} property.
	 * @param commandTimeout the value
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = WardenDefaults.requirePositive("warden.command-timeout", commandTimeout);
	}

	/**
	 * The {@code warden.connections} property.
	 * @return its value, or {@code null} for the default
	 */
	public @Nullable Integer getConnections() {
		return connections;
	}

	/**
	 * Sets the {@code warden.connections} property.
	 * @param connections the value, or {@code null} for the default
	 */
	public void setConnections(@Nullable Integer connections) {
		this.connections = (connections != null) ? WardenDefaults.requireConnections("warden.connections", connections)
				: null;
	}

	/**
	 * The {@code warden.namespace} property.
	 * @return its value
	 */
	public String getNamespace() {
		return namespace;
	}

	/**
	 * Sets the {@code warden.namespace} property.
	 * @param namespace the value
	 */
	public void setNamespace(String namespace) {
		this.namespace = KeyNamespace.check("warden.namespace", namespace);
	}

	/**
	 * The prefix of the {@code @DistributedLock} locks' keys: {@code warden.lock.key-prefix} when
	 * set, else {@code <namespace>:lock:}.
	 * @return the prefix
	 */
	public String lockKeyPrefix() {
		String prefix = lock.getKeyPrefix();
		return (prefix != null) ? prefix : KeyNamespace.of(namespace).lockKeyPrefix();
	}

	/**
	 * The {@code warden.eviction-policy-check} property.
	 * @return its value
	 */
	public CheckMode getEvictionPolicyCheck() {
		return evictionPolicyCheck;
	}

	/**
	 * Sets the {@code warden.eviction-policy-check} property.
	 * @param evictionPolicyCheck the value
	 */
	public void setEvictionPolicyCheck(CheckMode evictionPolicyCheck) {
		this.evictionPolicyCheck = evictionPolicyCheck;
	}

	/**
	 * The {@code warden.self-invocation} property.
	 * @return its value
	 */
	public CheckMode getSelfInvocation() {
		return selfInvocation;
	}

	/**
	 * Sets the {@code warden.self-invocation} property.
	 * @param selfInvocation the value
	 */
	public void setSelfInvocation(CheckMode selfInvocation) {
		this.selfInvocation = selfInvocation;
	}

	/**
	 * The {@code warden.rate-limit.*} properties.
	 * @return the rate limit properties
	 */
	public RateLimit getRateLimit() {
		return rateLimit;
	}

	/**
	 * The {@code warden.lock.*} properties.
	 * @return the lock properties
	 */
	public Lock getLock() {
		return lock;
	}

	/**
	 * The {@code warden.recurring.*} properties.
	 * @return the recurring properties
	 */
	public Recurring getRecurring() {
		return recurring;
	}

	/**
	 * The {@code warden.delayed-task.*} properties.
	 * @return the delayed task properties
	 */
	public DelayedTask getDelayedTask() {
		return delayedTask;
	}

	/**
	 * The {@code warden.redlock.*} properties.
	 * @return the redlock properties
	 */
	public RedLock getRedlock() {
		return redlock;
	}

	/**
	 * The {@code warden.metrics.*} properties.
	 * @return the metrics properties
	 */
	public Metrics getMetrics() {
		return metrics;
	}

	/**
	 * The {@code warden.endpoint.*} properties.
	 * @return the endpoint properties
	 */
	public Endpoint getEndpoint() {
		return endpoint;
	}

	/**
	 * The endpoint's properties under their names of 0.1.0.
	 * @return the same properties as {@link #getEndpoint()}
	 * @deprecated since 0.2.0, for removal in 0.4.0: use {@link #getEndpoint()}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public Actuator getActuator() {
		return actuator;
	}

	/**
	 * The deprecated properties the application sets, each with the property that replaces it, for a
	 * warning at startup.
	 * @return the deprecated names in use, with their replacements
	 */
	public Map<String, String> deprecatedInUse() {
		synchronized (deprecatedInUse) {
			return new LinkedHashMap<>(deprecatedInUse);
		}
	}

	/**
	 * The {@code warden.health.*} properties.
	 * @return the health properties
	 */
	public Health getHealth() {
		return health;
	}

	/**
	 * The properties of the dashboard of earlier versions, refused with where the dashboard is now.
	 * @return the refusing properties
	 * @deprecated the dashboard is a page of the warden endpoint
	 */
	@Deprecated(since = "0.1.0")
	public Dashboard getDashboard() {
		return dashboard;
	}

	/**
	 * The {@code warden.observations.*} properties.
	 * @return the observations properties
	 */
	public Observations getObservations() {
		return observations;
	}

	/**
	 * The {@code warden.test.*} properties.
	 * @return the test properties
	 */
	public Test getTest() {
		return test;
	}

	/**
	 * The {@code warden.fleet.*} properties.
	 * @return the fleet properties
	 */
	public Fleet getFleet() {
		return fleet;
	}

	/**
	 * How this instance announces itself to the other Warden instances on its Redis.
	 */
	public static class Fleet {

		/**
		 * How often this instance announces its version and the stored formats it reads and writes
		 * to the other instances on its Redis (the endpoint's fleet). It counts as live for three
		 * intervals after each announcement, by Redis's clock, and leaves at once when it stops
		 * cleanly.
		 */
		private Duration announceInterval = WardenDefaults.FLEET_ANNOUNCE_INTERVAL;

		/**
		 * The {@code warden.fleet.announce-interval} property.
		 * @return its value
		 */
		public Duration getAnnounceInterval() {
			return announceInterval;
		}

		/**
		 * Sets the {@code warden.fleet.announce-interval} property.
		 * @param announceInterval the value
		 */
		public void setAnnounceInterval(Duration announceInterval) {
			this.announceInterval = WardenDefaults.requireAnnounceInterval("warden.fleet.announce-interval",
					announceInterval);
		}

	}

	/**
	 * Micrometer Observation properties.
	 */
	public static class Observations {

		/**
		 * Whether lock waits, task schedules and task runs are observations of the application's
		 * ObservationRegistry (tracing spans, and timers through Spring Boot's default handler).
		 */
		private boolean enabled = true;

		/**
		 * The {@code warden.observations.enabled} property.
		 * @return its value
		 */
		public boolean isEnabled() {
			return enabled;
		}

		/**
		 * Sets the {@code warden.observations.enabled} property.
		 * @param enabled the value
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Micrometer metrics properties.
	 */
	public static class Metrics {

		/**
		 * Whether Warden registers its meters when the application has a MeterRegistry.
		 */
		private boolean enabled = true;

		/**
		 * How long a queue's pending, in-flight and dead-letter counts are reused by its gauges before
		 * they are read from Redis again (one call per queue for the three).
		 */
		private Duration queueRefreshInterval = WardenDefaults.METRICS_QUEUE_REFRESH;

		/**
		 * The {@code warden.metrics.enabled} property.
		 * @return its value
		 */
		public boolean isEnabled() {
			return enabled;
		}

		/**
		 * Sets the {@code warden.metrics.enabled} property.
		 * @param enabled the value
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		/**
		 * The {@code warden.metrics.queue-refresh-interval} property.
		 * @return its value
		 */
		public Duration getQueueRefreshInterval() {
			return queueRefreshInterval;
		}

		/**
		 * Sets the {@code warden.metrics.queue-refresh-interval} property.
		 * @param queueRefreshInterval the value
		 */
		public void setQueueRefreshInterval(Duration queueRefreshInterval) {
			this.queueRefreshInterval = WardenDefaults.requireNotNegative("warden.metrics.queue-refresh-interval",
					queueRefreshInterval);
		}

	}

	/**
	 * Properties of the warden Actuator endpoint and its dashboard page.
	 */
	public static class Endpoint {

		/**
		 * Whether the warden endpoint and its dashboard accept write operations: re-driving and
		 * purging dead letters, and cancelling pending tasks. Reads only when false.
		 */
		private boolean writeOperations;

		/**
		 * Which queues the write operations may change: consumed-queues, those this application
		 * consumes (another application's queues are its own to change), or all-queues, as for an
		 * application that only operates others.
		 */
		private WardenAdmin.WriteScope writeScope = WardenAdmin.WriteScope.CONSUMED_QUEUES;

		/** Which properties were set under their own names: those win over their deprecated names. */
		private boolean writeOperationsSet;

		private boolean writeScopeSet;

		/**
		 * The {@code warden.endpoint.write-operations} property.
		 * @return its value
		 */
		public boolean isWriteOperations() {
			return writeOperations;
		}

		/**
		 * Sets the {@code warden.endpoint.write-operations} property.
		 * @param writeOperations the value
		 */
		public void setWriteOperations(boolean writeOperations) {
			this.writeOperations = writeOperations;
			this.writeOperationsSet = true;
		}

		/**
		 * The {@code warden.endpoint.write-scope} property.
		 * @return its value
		 */
		public WardenAdmin.WriteScope getWriteScope() {
			return writeScope;
		}

		/**
		 * Sets the {@code warden.endpoint.write-scope} property.
		 * @param writeScope the value
		 */
		public void setWriteScope(WardenAdmin.WriteScope writeScope) {
			this.writeScope = writeScope;
			this.writeScopeSet = true;
		}

	}

	/**
	 * The endpoint's properties under their names of 0.1.0, {@code warden.actuator.*}: still read, as
	 * the {@code warden.endpoint.*} property of the same name unless that one is set, with a WARN at
	 * startup naming it.
	 * @deprecated since 0.2.0, for removal in 0.4.0: use {@link Endpoint}, {@code warden.endpoint.*}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public static class Actuator {

		private Endpoint endpoint = new Endpoint();

		private Map<String, String> deprecatedInUse = new LinkedHashMap<>();

		/** Properties of their own, until the {@link WardenProperties} that holds them binds them. */
		public Actuator() {
		}

		/** Reads and writes {@code endpoint}, and records each deprecated name set in {@code inUse}. */
		void bind(Endpoint endpoint, Map<String, String> inUse) {
			this.endpoint = endpoint;
			this.deprecatedInUse = inUse;
		}

		/**
		 * Whether the warden endpoint and its dashboard accept write operations.
		 * @return {@code warden.endpoint.write-operations}
		 * @deprecated use {@code warden.endpoint.write-operations}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		@DeprecatedConfigurationProperty(replacement = "warden.endpoint.write-operations", since = "0.2.0",
				reason = "The warden endpoint's properties are under warden.endpoint")
		public boolean isWriteOperations() {
			return endpoint.isWriteOperations();
		}

		/**
		 * Sets {@code warden.endpoint.write-operations}, unless it is set under its own name.
		 * @param writeOperations whether writes are accepted
		 * @deprecated use {@code warden.endpoint.write-operations}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		public void setWriteOperations(boolean writeOperations) {
			deprecatedInUse.put("warden.actuator.write-operations", "warden.endpoint.write-operations");
			if (!endpoint.writeOperationsSet) {
				endpoint.writeOperations = writeOperations;
			}
		}

		/**
		 * Which queues the write operations may change.
		 * @return {@code warden.endpoint.write-scope}
		 * @deprecated use {@code warden.endpoint.write-scope}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		@DeprecatedConfigurationProperty(replacement = "warden.endpoint.write-scope", since = "0.2.0",
				reason = "The warden endpoint's properties are under warden.endpoint")
		public WardenAdmin.WriteScope getWriteScope() {
			return endpoint.getWriteScope();
		}

		/**
		 * Sets {@code warden.endpoint.write-scope}, unless it is set under its own name.
		 * @param writeScope the queues writes may change
		 * @deprecated use {@code warden.endpoint.write-scope}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		public void setWriteScope(WardenAdmin.WriteScope writeScope) {
			deprecatedInUse.put("warden.actuator.write-scope", "warden.endpoint.write-scope");
			if (!endpoint.writeScopeSet) {
				endpoint.writeScope = writeScope;
			}
		}

	}

	/**
	 * Health indicator properties.
	 */
	public static class Health {

		/**
		 * The health status reported while Redis answers but some queue consumed here holds dead
		 * letters, for example DEGRADED or OUT_OF_SERVICE; unset reports UP (the queues are listed
		 * in the details either way).
		 */
		private @Nullable String deadLetterStatus;

		/**
		 * How often the health indicator's background check pings Redis (and reads the dead
		 * letters); the indicator answers from the last check, never waiting on Redis.
		 */
		private Duration checkInterval = Duration.ofSeconds(2);

		/** How long one background check waits for Redis's answers before reporting DOWN. */
		private Duration timeout = Duration.ofSeconds(1);

		/**
		 * The share of Redis's maxmemory in use from which the health indicator reports
		 * memory-status: near the limit, Redis soon refuses writes (noeviction) or evicts keys.
		 */
		private double memoryThreshold = 0.9;

		/**
		 * The health status reported while Redis uses memory-threshold of its maxmemory or more.
		 * Add it to management.endpoint.health.status.order (and http-mapping) like any custom status.
		 */
		private String memoryStatus = "DEGRADED";

		/**
		 * The {@code warden.health.memory-threshold} property.
		 * @return its value
		 */
		public double getMemoryThreshold() {
			return memoryThreshold;
		}

		/**
		 * Sets the {@code warden.health.memory-threshold} property.
		 * @param memoryThreshold the value
		 */
		public void setMemoryThreshold(double memoryThreshold) {
			if (!(memoryThreshold > 0 && memoryThreshold <= 1)) {
				throw new IllegalArgumentException("warden.health.memory-threshold must be above 0 and at most 1: "
						+ memoryThreshold);
			}
			this.memoryThreshold = memoryThreshold;
		}

		/**
		 * The {@code warden.health.memory-status} property.
		 * @return its value
		 */
		public String getMemoryStatus() {
			return memoryStatus;
		}

		/**
		 * Sets the {@code warden.health.memory-status} property.
		 * @param memoryStatus the value
		 */
		public void setMemoryStatus(String memoryStatus) {
			this.memoryStatus = memoryStatus;
		}

		/**
		 * The {@code warden.health.check-interval} property.
		 * @return its value
		 */
		public Duration getCheckInterval() {
			return checkInterval;
		}

		/**
		 * Sets the {@code warden.health.check-interval} property.
		 * @param checkInterval the value
		 */
		public void setCheckInterval(Duration checkInterval) {
			this.checkInterval = WardenDefaults.requirePositive("warden.health.check-interval", checkInterval);
		}

		/**
		 * The {@code warden.health.timeout} property.
		 * @return its value
		 */
		public Duration getTimeout() {
			return timeout;
		}

		/**
		 * Sets the {@code warden.health.timeout} property.
		 * @param timeout the value
		 */
		public void setTimeout(Duration timeout) {
			this.timeout = WardenDefaults.requirePositive("warden.health.timeout", timeout);
		}

		/**
		 * The {@code warden.health.dead-letter-status} property.
		 * @return its value
		 */
		public @Nullable String getDeadLetterStatus() {
			return deadLetterStatus;
		}

		/**
		 * Sets the {@code warden.health.dead-letter-status} property.
		 * @param deadLetterStatus the value
		 */
		public void setDeadLetterStatus(@Nullable String deadLetterStatus) {
			this.deadLetterStatus = (deadLetterStatus == null || deadLetterStatus.isBlank()) ? null
					: deadLetterStatus.trim();
		}

	}

	/**
	 * The dashboard's properties of earlier versions: the dashboard is now a page of the warden
	 * Actuator endpoint, so setting one fails startup saying so.
	 * @deprecated the dashboard is at {@code <actuator base path>/warden/dashboard}
	 */
	@Deprecated(since = "0.1.0")
	public static class Dashboard {

		private static final String MOVED = " no longer applies: the dashboard is a page of the warden Actuator "
				+ "endpoint, at <actuator base path>/warden/dashboard on the Actuator's port, served where the "
				+ "endpoint is exposed (management.endpoints.web.exposure.include=warden); remove the property";

		/**
		 * Refused: the dashboard is served with the warden endpoint.
		 * @param enabled ignored
		 * @throws IllegalArgumentException always, saying where the dashboard is
		 */
		public void setEnabled(boolean enabled) {
			throw new IllegalArgumentException("warden.dashboard.enabled" + MOVED);
		}

		/**
		 * Refused: the dashboard is served under the Actuator's base path.
		 * @param path ignored
		 * @throws IllegalArgumentException always, saying where the dashboard is
		 */
		public void setPath(String path) {
			throw new IllegalArgumentException("warden.dashboard.path" + MOVED);
		}

	}

	/**
	 * Recurring task properties.
	 */
	public static class Recurring {

		/**
		 * The delayed queue that holds the application's recurring task occurrences, one per
		 * application, so that applications sharing a Redis do not take each other's jobs:
		 * recurring:<spring.application.name> by default (recurring without a name).
		 */
		private @Nullable String queue;

		/**
		 * How late an occurrence may start (no instance was up when it was due) before its misfire
		 * policy applies: run it once, or skip it.
		 */
		private Duration misfireThreshold = WardenDefaults.RECURRING_MISFIRE_THRESHOLD;

		/**
		 * The {@code warden.recurring.queue} property.
		 * @return its value
		 */
		public @Nullable String getQueue() {
			return queue;
		}

		/**
		 * Sets the {@code warden.recurring.queue} property.
		 * @param queue the value
		 */
		public void setQueue(@Nullable String queue) {
			this.queue = queue;
		}

		/**
		 * The queue, named after the application when none is set.
		 * @param applicationName {@code spring.application.name}, or {@code null}
		 * @return the queue's name
		 */
		public String queueFor(@Nullable String applicationName) {
			if (queue != null) {
				return queue;
			}
			return (applicationName == null || applicationName.isBlank()) ? "recurring" : "recurring:" + applicationName;
		}

		/**
		 * The {@code warden.recurring.misfire-threshold} property.
		 * @return its value
		 */
		public Duration getMisfireThreshold() {
			return misfireThreshold;
		}

		/**
		 * Sets the {@code warden.recurring.misfire-threshold} property.
		 * @param misfireThreshold the value
		 */
		public void setMisfireThreshold(Duration misfireThreshold) {
			this.misfireThreshold = WardenDefaults.requireNotNegative("warden.recurring.misfire-threshold",
					misfireThreshold);
		}

	}

	/**
	 * The {@code @RateLimited} advice.
	 */
	public static class RateLimit {

		/**
		 * The order of the @RateLimited advice. The default puts it just outside the
		 * {@code @DistributedLock} advice (and so outside the transaction advice): a call refused by its
		 * limit neither waits for a lock nor opens a transaction.
		 */
		public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 200;

		/**
		 * Order of the @RateLimited advice among other advice. Keep it lower than the
		 * @DistributedLock advice's, so that a refused call does not wait for a lock.
		 */
		private int aspectOrder = DEFAULT_ASPECT_ORDER;

		private final ProblemDetails problemDetails = new ProblemDetails();

		/**
		 * The {@code warden.rate-limit.aspect-order} property.
		 * @return its value
		 */
		public int getAspectOrder() {
			return aspectOrder;
		}

		/**
		 * Sets the {@code warden.rate-limit.aspect-order} property.
		 * @param aspectOrder the value
		 */
		public void setAspectOrder(int aspectOrder) {
			this.aspectOrder = aspectOrder;
		}

		/**
		 * The {@code warden.rate-limit.problem-details.*} properties.
		 * @return the problem details properties
		 */
		public ProblemDetails getProblemDetails() {
			return problemDetails;
		}

		/**
		 * How a web application answers a request whose handler a rate limit refused.
		 */
		public static class ProblemDetails {

			/**
			 * Whether a RateLimitExceededException that reaches Spring MVC or WebFlux becomes a 429
			 * response with Retry-After, as RFC 9457 problem details.
			 */
			private boolean enabled = true;

			/**
			 * The {@code warden.rate-limit.problem-details.enabled} property.
			 * @return its value
			 */
			public boolean isEnabled() {
				return enabled;
			}

			/**
			 * Sets the {@code warden.rate-limit.problem-details.enabled} property.
			 * @param enabled the value
			 */
			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

	/**
	 * Lock properties.
	 */
	public static class Lock {

		/**
		 * The order of the @DistributedLock advice. The default puts it just outside Spring's
		 * transaction advice (whose order is the lowest precedence), so that a transaction
		 * commits before its lock is released; a lower value moves it further out.
		 */
		public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

		/**
		 * Lease of locks taken without an explicit lease, renewed by the watchdog every third of
		 * it until they are released.
		 */
		private Duration watchdogTimeout = WardenDefaults.WATCHDOG_TIMEOUT;

		/**
		 * Prefix of the Redis key of every @DistributedLock lock. Defaults to
		 * <namespace>:lock: (warden:lock: with the default warden.namespace).
		 */
		private @Nullable String keyPrefix;

		/**
		 * Prefix put in front of every name given to the Warden client for a lock, semaphore or
		 * latch (warden.getLock(name) and the others), so that an application's programmatic locks
		 * are under keys of its own. Empty by default: the names are the Redis keys as given, as
		 * Redisson names them. @DistributedLock locks use key-prefix instead.
		 */
		private String namePrefix = "";

		/**
		 * How long @DistributedLock methods wait for their lock when the annotation does not say.
		 * Zero tries once.
		 */
		private Duration defaultWaitTime = Duration.ZERO;

		/**
		 * Order of the @DistributedLock advice among other advice. Must stay lower than the
		 * transaction advice's order so that the lock surrounds the transaction: the transaction
		 * commits before the lock is released.
		 */
		private int aspectOrder = DEFAULT_ASPECT_ORDER;

		/**
		 * Whether a lock lost while an annotated method ran (lease expired or force-unlocked)
		 * fails the call with LockLostException after the method returned. It is logged and
		 * reported to the LockListener either way.
		 */
		private boolean failOnLostLease = true;

		private final ReplicaSync replicaSync = new ReplicaSync().named("warden.lock.replica-sync");

		/**
		 * The {@code warden.lock.replica-sync.*} properties.
		 * @return the replica sync properties
		 */
		public ReplicaSync getReplicaSync() {
			return replicaSync;
		}

		/**
		 * The {@code warden.lock.fail-on-lost-lease} property.
		 * @return its value
		 */
		public boolean isFailOnLostLease() {
			return failOnLostLease;
		}

		/**
		 * Sets the {@code warden.lock.fail-on-lost-lease} property.
		 * @param failOnLostLease the value
		 */
		public void setFailOnLostLease(boolean failOnLostLease) {
			this.failOnLostLease = failOnLostLease;
		}

		/**
		 * The {@code warden.lock.watchdog-timeout} property.
		 * @return its value
		 */
		public Duration getWatchdogTimeout() {
			return watchdogTimeout;
		}

		/**
		 * Sets the {@code warden.lock.watchdog-timeout} property.
		 * @param watchdogTimeout the value
		 */
		public void setWatchdogTimeout(Duration watchdogTimeout) {
			this.watchdogTimeout = WardenDefaults.requireWatchdogTimeout("warden.lock.watchdog-timeout", watchdogTimeout);
		}

		/**
		 * The key prefix when set; {@link WardenProperties#lockKeyPrefix()} is the one in effect.
		 * @return the prefix, or {@code null} for {@code <namespace>:lock:}
		 */
		public @Nullable String getKeyPrefix() {
			return keyPrefix;
		}

		/**
		 * Sets the {@code warden.lock.key-prefix} property.
		 * @param keyPrefix the value
		 */
		public void setKeyPrefix(@Nullable String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		/**
		 * The {@code warden.lock.name-prefix} property.
		 * @return its value
		 */
		public String getNamePrefix() {
			return namePrefix;
		}

		/**
		 * Sets the {@code warden.lock.name-prefix} property.
		 * @param namePrefix the value
		 */
		public void setNamePrefix(@Nullable String namePrefix) {
			this.namePrefix = (namePrefix != null) ? namePrefix : "";
		}

		/**
		 * The {@code warden.lock.default-wait-time} property.
		 * @return its value
		 */
		public Duration getDefaultWaitTime() {
			return defaultWaitTime;
		}

		/**
		 * Sets the {@code warden.lock.default-wait-time} property.
		 * @param defaultWaitTime the value
		 */
		public void setDefaultWaitTime(Duration defaultWaitTime) {
			this.defaultWaitTime = defaultWaitTime;
		}

		/**
		 * The {@code warden.lock.aspect-order} property.
		 * @return its value
		 */
		public int getAspectOrder() {
			return aspectOrder;
		}

		/**
		 * Sets the {@code warden.lock.aspect-order} property.
		 * @param aspectOrder the value
		 */
		public void setAspectOrder(int aspectOrder) {
			this.aspectOrder = aspectOrder;
		}

	}

	/**
	 * The fail-over check after each write that must survive a fail-over.
	 */
	public static class ReplicaSync {

		private String prefix = "replica-sync";

		/**
		 * How many replicas must acknowledge the write (Redis WAIT) before it counts; 0 turns the
		 * check off. Unset: one when the master has replicas or lost those it had while this client
		 * watched it (a master deposed by a fail-over; a client that starts after they went waits for
		 * none until one attaches), none when it never had any, following the master's replicas (read
		 * at connect, after each reconnect and every 5 s, across fail-overs). On Redis Cluster, per
		 * master: the WAIT goes to the master of the lock's or queue's slot. Unacknowledged within the
		 * timeout, a lock acquisition is given back, so that no lock is held that a fail-over could
		 * lose, and a schedule fails with ReplicaSyncException, a RedisUnavailableException
		 * (scheduling again with the same id is safe), so that an acknowledged task survives a
		 * fail-over.
		 */
		private @Nullable Integer replicas;

		/**
		 * How long to wait for the replicas' acknowledgement.
		 */
		private Duration timeout = WardenDefaults.REPLICA_SYNC_TIMEOUT;

		/** Names the properties in messages: {@code warden.lock.replica-sync}. */
		ReplicaSync named(String prefix) {
			this.prefix = prefix;
			return this;
		}

		/**
		 * The {@code replica-sync.replicas} property of {@code warden.lock} or
		 * {@code warden.delayed-task}.
		 * @return its value
		 */
		public @Nullable Integer getReplicas() {
			return replicas;
		}

		/**
		 * Sets the {@code replica-sync.replicas} property of {@code warden.lock} or
		 * {@code warden.delayed-task}.
		 * @param replicas the value
		 */
		public void setReplicas(@Nullable Integer replicas) {
			if (replicas != null && replicas < 0) {
				throw new IllegalArgumentException(prefix + ".replicas must not be negative (leave it unset for one "
						+ "replica when the master has any): " + replicas);
			}
			this.replicas = replicas;
		}

		/** The replicas as Warden's builder takes them: {@link dev.warden.lock.redis.ReplicaSync#AUTO} when unset. */
		int replicasOrAuto() {
			return (replicas != null) ? replicas : dev.warden.lock.redis.ReplicaSync.AUTO;
		}

		/**
		 * The {@code replica-sync.timeout} property of {@code warden.lock} or
		 * {@code warden.delayed-task}.
		 * @return its value
		 */
		public Duration getTimeout() {
			return timeout;
		}

		/**
		 * Sets the {@code replica-sync.timeout} property of {@code warden.lock} or
		 * {@code warden.delayed-task}.
		 * @param timeout the value
		 */
		public void setTimeout(Duration timeout) {
			this.timeout = WardenDefaults.requirePositive(prefix + ".timeout", timeout);
		}

	}

	/**
	 * Delayed task properties.
	 */
	public static class DelayedTask {

		/**
		 * How many task handlers run at once on this instance, across all queues, on as many daemon
		 * threads named warden-task-... (a work-stealing pool: a parallel stream in a handler runs on
		 * these threads too).
		 */
		private int concurrency = WardenDefaults.TASK_CONCURRENCY;

		/**
		 * How long a delivered task stays invisible to other instances. A running handler's claim is
		 * extended every third of it, so it bounds how long a dead instance keeps a task (delivered
		 * again once it is over), not how long a handler may run.
		 */
		private Duration visibilityTimeout = WardenDefaults.TASK_VISIBILITY_TIMEOUT;

		/**
		 * Deliveries before a task becomes a dead letter, unless its annotation says otherwise.
		 */
		private int maxAttempts = WardenDefaults.TASK_MAX_ATTEMPTS;

		/**
		 * Wait before the second attempt of a failed task, doubled for each further one, unless its
		 * annotation says otherwise.
		 */
		private Duration backoff = WardenDefaults.TASK_BACKOFF;

		/**
		 * Longest wait between two attempts of a failed task.
		 */
		private Duration maxBackoff = WardenDefaults.TASK_MAX_BACKOFF;

		/**
		 * Longest time a consumer sleeps without looking at its queue: a safety net for a missed
		 * wake-up message; consumers are woken by Redis pub/sub and their own timers.
		 */
		private Duration sweepInterval = WardenDefaults.TASK_SWEEP_INTERVAL;

		/**
		 * How long before its due time a consumer may claim a task, together with the tasks it
		 * claims anyway; it starts each when it is due. A busy queue then costs Redis one claim per
		 * window instead of one per due millisecond. Zero claims only tasks already due; at most 1 s.
		 */
		private Duration claimAhead = WardenDefaults.TASK_CLAIM_AHEAD;

		/**
		 * How long shutdown waits for running task handlers. Those still running after it stay in
		 * flight and are delivered again after the visibility timeout.
		 */
		private Duration shutdownGrace = WardenDefaults.SHUTDOWN_GRACE;

		/**
		 * The largest payload a task may be scheduled with, as stored (JSON). A larger one is refused
		 * with IllegalArgumentException before anything is written; at most 512MB.
		 */
		private DataSize maxPayloadSize = DataSize.ofBytes(WardenDefaults.TASK_MAX_PAYLOAD_BYTES);

		/**
		 * How long dead letters are kept after they failed; older ones are removed when another task
		 * of their queue becomes a dead letter, or by purgeDeadLetters. Unset, they are kept until
		 * requeued or deleted.
		 */
		private @Nullable Duration deadLetterRetention;

		/**
		 * How long a task written by a later Warden or task version than this instance reads may
		 * wait in its queue, left there by this instance without spending its attempts, before it
		 * becomes a dead letter with the reason. During a rolling deploy, instances of the later
		 * version take such tasks long before.
		 */
		private Duration newerFormatGrace = WardenDefaults.TASK_NEWER_FORMAT_GRACE;

		/**
		 * Whether task handlers run on virtual threads, one per task (Java 21 and later); the
		 * concurrency still bounds how many run at once. Unset, it follows
		 * spring.threads.virtual.enabled; true under an older Java fails startup naming this property.
		 */
		private @Nullable Boolean virtualThreads;

		private final ReplicaSync replicaSync = new ReplicaSync().named("warden.delayed-task.replica-sync");

		private final Transactions transactions = new Transactions();

		/**
		 * How task writes made inside a Spring-managed transaction follow it.
		 * @return the options
		 */
		public Transactions getTransactions() {
			return transactions;
		}

		/**
		 * The queues whose writes are made at once even inside a transaction
		 * ({@code queues.<name>.transactional=false}).
		 * @return their names
		 */
		public java.util.Set<String> immediateQueues() {
			java.util.Set<String> names = new java.util.LinkedHashSet<>();
			queues.forEach((name, queue) -> {
				if (Boolean.FALSE.equals(queue.transactional)) {
					names.add(name);
				}
			});
			return names;
		}

		/**
		 * The durability check after each schedule: with replicas above 0, a schedule is
		 * acknowledged only once that many replicas have it, so that it survives a fail-over.
		 * @return the check
		 */
		public ReplicaSync getReplicaSync() {
			return replicaSync;
		}

		/**
		 * Options of single queues, by queue name (warden.delayed-task.queues.<queue>.*):
		 * visibility-timeout, max-attempts, backoff and max-backoff, each falling back to the
		 * warden.delayed-task value (a @DelayedTask attribute overrides them for its method's queue);
		 * transactional, true by default, false making the queue's schedules, cancels and reschedules
		 * at once, inside transactions too; and the queue's task limits, unset by default:
		 * limit.concurrency, how many tasks of one key (or of the queue) run at once across
		 * instances, limit.rate, how many of them start per limit.period (1s by default), and
		 * limit.burst, how many starts a key that waited long enough may make at once (the rate by
		 * default). Empty by default: every queue takes the warden.delayed-task values.
		 */
		private final Map<String, Queue> queues = new LinkedHashMap<>();

		/**
		 * The {@code warden.delayed-task.queues.*} properties, by queue name.
		 * @return the properties of each queue named
		 */
		public Map<String, Queue> getQueues() {
			return queues;
		}

		/**
		 * The {@code warden.delayed-task.dead-letter-retention} property.
		 * @return its value
		 */
		public @Nullable Duration getDeadLetterRetention() {
			return deadLetterRetention;
		}

		/**
		 * Sets the {@code warden.delayed-task.dead-letter-retention} property.
		 * @param deadLetterRetention the value
		 */
		public void setDeadLetterRetention(@Nullable Duration deadLetterRetention) {
			if (deadLetterRetention != null) {
				WardenDefaults.requirePositive("warden.delayed-task.dead-letter-retention", deadLetterRetention);
			}
			this.deadLetterRetention = deadLetterRetention;
		}

		/**
		 * The {@code warden.delayed-task.newer-format-grace} property.
		 * @return its value
		 */
		public Duration getNewerFormatGrace() {
			return newerFormatGrace;
		}

		/**
		 * Sets the {@code warden.delayed-task.newer-format-grace} property.
		 * @param newerFormatGrace the value
		 */
		public void setNewerFormatGrace(Duration newerFormatGrace) {
			this.newerFormatGrace = WardenDefaults.requirePositive("warden.delayed-task.newer-format-grace",
					newerFormatGrace);
		}

		/**
		 * The {@code warden.delayed-task.virtual-threads} property.
		 * @return its value
		 */
		public @Nullable Boolean getVirtualThreads() {
			return virtualThreads;
		}

		/**
		 * Sets the {@code warden.delayed-task.virtual-threads} property.
		 * @param virtualThreads the value
		 */
		public void setVirtualThreads(@Nullable Boolean virtualThreads) {
			this.virtualThreads = virtualThreads;
		}

		/**
		 * The {@code warden.delayed-task.concurrency} property.
		 * @return its value
		 */
		public int getConcurrency() {
			return concurrency;
		}

		/**
		 * Sets the {@code warden.delayed-task.concurrency} property.
		 * @param concurrency the value
		 */
		public void setConcurrency(int concurrency) {
			this.concurrency = WardenDefaults.requireAtLeastOne("warden.delayed-task.concurrency", concurrency);
		}

		/**
		 * The {@code warden.delayed-task.visibility-timeout} property.
		 * @return its value
		 */
		public Duration getVisibilityTimeout() {
			return visibilityTimeout;
		}

		/**
		 * Sets the {@code warden.delayed-task.visibility-timeout} property.
		 * @param visibilityTimeout the value
		 */
		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		/**
		 * The {@code warden.delayed-task.max-attempts} property.
		 * @return its value
		 */
		public int getMaxAttempts() {
			return maxAttempts;
		}

		/**
		 * Sets the {@code warden.delayed-task.max-attempts} property.
		 * @param maxAttempts the value
		 */
		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		/**
		 * The {@code warden.delayed-task.backoff} property.
		 * @return its value
		 */
		public Duration getBackoff() {
			return backoff;
		}

		/**
		 * Sets the {@code warden.delayed-task.backoff} property.
		 * @param backoff the value
		 */
		public void setBackoff(Duration backoff) {
			this.backoff = backoff;
		}

		/**
		 * The {@code warden.delayed-task.max-backoff} property.
		 * @return its value
		 */
		public Duration getMaxBackoff() {
			return maxBackoff;
		}

		/**
		 * Sets the {@code warden.delayed-task.max-backoff} property.
		 * @param maxBackoff the value
		 */
		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		/**
		 * The {@code warden.delayed-task.sweep-interval} property.
		 * @return its value
		 */
		public Duration getSweepInterval() {
			return sweepInterval;
		}

		/**
		 * Sets the {@code warden.delayed-task.sweep-interval} property.
		 * @param sweepInterval the value
		 */
		public void setSweepInterval(Duration sweepInterval) {
			this.sweepInterval = WardenDefaults.requirePositive("warden.delayed-task.sweep-interval", sweepInterval);
		}

		/**
		 * The {@code warden.delayed-task.claim-ahead} property.
		 * @return its value
		 */
		public Duration getClaimAhead() {
			return claimAhead;
		}

		/**
		 * Sets the {@code warden.delayed-task.claim-ahead} property.
		 * @param claimAhead the value
		 */
		public void setClaimAhead(Duration claimAhead) {
			this.claimAhead = WardenDefaults.requireClaimAhead("warden.delayed-task.claim-ahead", claimAhead);
		}

		/**
		 * The {@code warden.delayed-task.shutdown-grace} property.
		 * @return its value
		 */
		public Duration getShutdownGrace() {
			return shutdownGrace;
		}

		/**
		 * Sets the {@code warden.delayed-task.shutdown-grace} property.
		 * @param shutdownGrace the value
		 */
		public void setShutdownGrace(Duration shutdownGrace) {
			this.shutdownGrace = WardenDefaults.requireNotNegative("warden.delayed-task.shutdown-grace", shutdownGrace);
		}

		/**
		 * The {@code warden.delayed-task.max-payload-size} property.
		 * @return its value
		 */
		public DataSize getMaxPayloadSize() {
			return maxPayloadSize;
		}

		/**
		 * Sets the {@code warden.delayed-task.max-payload-size} property.
		 * @param maxPayloadSize the value
		 */
		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			WardenDefaults.requirePayloadLimit("warden.delayed-task.max-payload-size", maxPayloadSize.toBytes());
			this.maxPayloadSize = maxPayloadSize;
		}

		/**
		 * The consumer options these properties describe.
		 * @return the options
		 * @throws IllegalArgumentException naming the property that is out of range
		 */
		public ConsumerOptions toConsumerOptions() {
			try {
				return new ConsumerOptions(maxAttempts, backoff, maxBackoff, visibilityTimeout);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Invalid warden.delayed-task.* property: " + ex.getMessage(), ex);
			}
		}

		/**
		 * The consumer options of one queue: its {@code queues} entry over the general ones.
		 * @param queue the queue's name
		 * @return the options
		 * @throws IllegalArgumentException naming the property that is out of range
		 */
		public ConsumerOptions toConsumerOptions(String queue) {
			ConsumerOptions options = toConsumerOptions();
			Queue own = queues.get(queue);
			if (own == null) {
				return options;
			}
			try {
				return new ConsumerOptions((own.maxAttempts != null) ? own.maxAttempts : options.maxAttempts(),
						(own.backoff != null) ? own.backoff : options.backoff(),
						(own.maxBackoff != null) ? own.maxBackoff : options.maxBackoff(),
						(own.visibilityTimeout != null) ? own.visibilityTimeout : options.visibilityTimeout(),
						own.limit.toTaskLimits());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Invalid warden.delayed-task.queues." + queue + ".* property: "
						+ ex.getMessage(), ex);
			}
		}

		/**
		 * One queue's options; each unset one is the warden.delayed-task value.
		 */
		public static class Queue {

			/**
			 * How long a delivered task of this queue stays invisible to other instances.
			 */
			private @Nullable Duration visibilityTimeout;

			/**
			 * Deliveries of a task of this queue before it becomes a dead letter.
			 */
			private @Nullable Integer maxAttempts;

			/**
			 * Wait before the second attempt of a failed task of this queue, doubled for each further one.
			 */
			private @Nullable Duration backoff;

			/**
			 * Longest wait between two attempts of a failed task of this queue.
			 */
			private @Nullable Duration maxBackoff;

			/**
			 * Whether schedules, cancels and reschedules of this queue made inside a transaction
			 * take effect when it commits (the default); false makes them at once.
			 */
			private @Nullable Boolean transactional;

			private final Limit limit = new Limit();

			/**
			 * The {@code warden.delayed-task.queues.<name>.transactional} property.
			 * @return its value
			 */
			public @Nullable Boolean getTransactional() {
				return transactional;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.transactional} property.
			 * @param transactional the value
			 */
			public void setTransactional(@Nullable Boolean transactional) {
				this.transactional = transactional;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.visibility-timeout} property.
			 * @return its value
			 */
			public @Nullable Duration getVisibilityTimeout() {
				return visibilityTimeout;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.visibility-timeout} property.
			 * @param visibilityTimeout the value
			 */
			public void setVisibilityTimeout(@Nullable Duration visibilityTimeout) {
				this.visibilityTimeout = visibilityTimeout;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.max-attempts} property.
			 * @return its value
			 */
			public @Nullable Integer getMaxAttempts() {
				return maxAttempts;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.max-attempts} property.
			 * @param maxAttempts the value
			 */
			public void setMaxAttempts(@Nullable Integer maxAttempts) {
				this.maxAttempts = maxAttempts;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.backoff} property.
			 * @return its value
			 */
			public @Nullable Duration getBackoff() {
				return backoff;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.backoff} property.
			 * @param backoff the value
			 */
			public void setBackoff(@Nullable Duration backoff) {
				this.backoff = backoff;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.max-backoff} property.
			 * @return its value
			 */
			public @Nullable Duration getMaxBackoff() {
				return maxBackoff;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.max-backoff} property.
			 * @param maxBackoff the value
			 */
			public void setMaxBackoff(@Nullable Duration maxBackoff) {
				this.maxBackoff = maxBackoff;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.limit.*} properties.
			 * @return the limit properties
			 */
			public Limit getLimit() {
				return limit;
			}

		}

		/**
		 * Limits on how one queue's tasks start, across all instances: for the whole queue, or per
		 * key when its @DelayedTask names a limit key.
		 */
		public static class Limit {

			/**
			 * How many tasks (of one key) may run at once across all instances.
			 */
			private @Nullable Integer concurrency;

			/**
			 * How many tasks (of one key) may start per period across all instances.
			 */
			private @Nullable Long rate;

			/**
			 * The period of the rate.
			 */
			private Duration period = Duration.ofSeconds(1);

			/**
			 * How many starts a key that waited long enough may make at once; unset, the rate.
			 */
			private @Nullable Long burst;

			/**
			 * The {@code warden.delayed-task.queues.<name>.limit.concurrency} property.
			 * @return its value
			 */
			public @Nullable Integer getConcurrency() {
				return concurrency;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.limit.concurrency} property.
			 * @param concurrency the value
			 */
			public void setConcurrency(@Nullable Integer concurrency) {
				this.concurrency = concurrency;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.limit.rate} property.
			 * @return its value
			 */
			public @Nullable Long getRate() {
				return rate;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.limit.rate} property.
			 * @param rate the value
			 */
			public void setRate(@Nullable Long rate) {
				this.rate = rate;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.limit.period} property.
			 * @return its value
			 */
			public Duration getPeriod() {
				return period;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.limit.period} property.
			 * @param period the value
			 */
			public void setPeriod(Duration period) {
				this.period = period;
			}

			/**
			 * The {@code warden.delayed-task.queues.<name>.limit.burst} property.
			 * @return its value
			 */
			public @Nullable Long getBurst() {
				return burst;
			}

			/**
			 * Sets the {@code warden.delayed-task.queues.<name>.limit.burst} property.
			 * @param burst the value
			 */
			public void setBurst(@Nullable Long burst) {
				this.burst = burst;
			}

			/**
			 * The limits these properties describe, without a key.
			 * @return the limits; {@link TaskLimits#NONE} when none is set
			 * @throws IllegalArgumentException when a value is out of range
			 */
			TaskLimits toTaskLimits() {
				if (concurrency != null && concurrency < 1) {
					throw new IllegalArgumentException("limit.concurrency must be at least 1: " + concurrency);
				}
				if (rate == null && burst != null) {
					throw new IllegalArgumentException("limit.burst is set without limit.rate");
				}
				dev.warden.ratelimit.RateLimit limit = (rate != null)
						? new dev.warden.ratelimit.RateLimit(rate, period, (burst != null) ? burst : rate) : null;
				return new TaskLimits((concurrency != null) ? concurrency : 0, limit, null);
			}

		}

	}

	/**
	 * How delayed-task writes follow the application's transactions.
	 */
	public static class Transactions {

		/**
		 * Whether a schedule, cancel or reschedule made inside a Spring-managed transaction takes
		 * effect only when it commits, through an outbox table in the application's DataSource. Off,
		 * such writes are made at once, whatever becomes of the transaction.
		 */
		private boolean enabled = true;

		/**
		 * The outbox table, optionally with its schema.
		 */
		private String table = "warden_task_outbox";

		/**
		 * When Warden creates the outbox table (CREATE TABLE IF NOT EXISTS): on an embedded database
		 * only (H2, HSQLDB, Derby), always, or never.
		 */
		private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

		/**
		 * How long after its transaction began a committed write waits for its own instance before
		 * any instance makes it: the bound on how late a write is when its instance dies after the
		 * commit, or cannot reach Redis then.
		 */
		private Duration relayAfter = Duration.ofSeconds(10);

		/**
		 * How often each instance looks in the outbox table for committed writes that their
		 * instance did not make.
		 */
		private Duration sweepInterval = Duration.ofSeconds(1);

		/**
		 * The {@code warden.delayed-task.transactions.enabled} property.
		 * @return its value
		 */
		public boolean isEnabled() {
			return enabled;
		}

		/**
		 * Sets the {@code warden.delayed-task.transactions.enabled} property.
		 * @param enabled the value
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		/**
		 * The {@code warden.delayed-task.transactions.table} property.
		 * @return its value
		 */
		public String getTable() {
			return table;
		}

		/**
		 * Sets the {@code warden.delayed-task.transactions.table} property.
		 * @param table the value
		 */
		public void setTable(String table) {
			this.table = table;
		}

		/**
		 * The {@code warden.delayed-task.transactions.initialize-schema} property.
		 * @return its value
		 */
		public InitializeSchema getInitializeSchema() {
			return initializeSchema;
		}

		/**
		 * Sets the {@code warden.delayed-task.transactions.initialize-schema} property.
		 * @param initializeSchema the value
		 */
		public void setInitializeSchema(InitializeSchema initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		/**
		 * The {@code warden.delayed-task.transactions.relay-after} property.
		 * @return its value
		 */
		public Duration getRelayAfter() {
			return relayAfter;
		}

		/**
		 * Sets the {@code warden.delayed-task.transactions.relay-after} property.
		 * @param relayAfter the value
		 */
		public void setRelayAfter(Duration relayAfter) {
			this.relayAfter = WardenDefaults.requirePositive("warden.delayed-task.transactions.relay-after", relayAfter);
		}

		/**
		 * The {@code warden.delayed-task.transactions.sweep-interval} property.
		 * @return its value
		 */
		public Duration getSweepInterval() {
			return sweepInterval;
		}

		/**
		 * Sets the {@code warden.delayed-task.transactions.sweep-interval} property.
		 * @param sweepInterval the value
		 */
		public void setSweepInterval(Duration sweepInterval) {
			this.sweepInterval = WardenDefaults.requirePositive("warden.delayed-task.transactions.sweep-interval",
					sweepInterval);
		}

		/** When the outbox table is created. */
		public enum InitializeSchema {

			/** On an embedded database only. */
			EMBEDDED,

			/** On any database. */
			ALWAYS,

			/** Never: the table is created with the application's own migrations. */
			NEVER

		}

	}

	/**
	 * RedLock properties.
	 */
	public static class RedLock {

		/**
		 * URIs of the independent Redis nodes of RedLocks (redis://host:port), at least 3. Empty:
		 * no RedLocks.
		 */
		private List<String> nodes = new ArrayList<>();

		/**
		 * How long one RedLock attempt waits for a node before counting it as refused.
		 */
		private Duration nodeTimeout = WardenDefaults.REDLOCK_NODE_TIMEOUT;

		/**
		 * The {@code warden.redlock.nodes} property.
		 * @return its value
		 */
		public List<String> getNodes() {
			return nodes;
		}

		/**
		 * Sets the {@code warden.redlock.nodes} property.
		 * @param nodes the value
		 */
		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

		/**
		 * The {@code warden.redlock.node-timeout} property.
		 * @return its value
		 */
		public Duration getNodeTimeout() {
			return nodeTimeout;
		}

		/**
		 * Sets the {@code warden.redlock.node-timeout} property.
		 * @param nodeTimeout the value
		 */
		public void setNodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = WardenDefaults.requirePositive("warden.redlock.node-timeout", nodeTimeout);
		}

	}

	/**
	 * What warden-test's TaskClock.reset() deletes, and where (read by the warden-test artifact).
	 */
	public static class Test {

		/**
		 * Whether TaskClock.reset() may delete Warden's keys on a Redis that @WardenTest did not
		 * start (one the test names with spring.data.redis.*), which may be shared with other
		 * services whose Warden keys would be deleted too. Off, a call of TaskClock.reset() refuses
		 * with an exception, and the reset @WardenTest makes before each test deletes nothing there
		 * (one INFO line says so).
		 */
		private boolean resetSharedRedis = false;

		/**
		 * More key patterns (Redis globs such as cart:*) that TaskClock.reset() deletes besides
		 * Warden's own keys: the test's own keys. Empty by default.
		 */
		private List<String> resetKeys = new ArrayList<>();

		/**
		 * The {@code warden.test.reset-shared-redis} property.
		 * @return its value
		 */
		public boolean isResetSharedRedis() {
			return resetSharedRedis;
		}

		/**
		 * Sets the {@code warden.test.reset-shared-redis} property.
		 * @param resetSharedRedis the value
		 */
		public void setResetSharedRedis(boolean resetSharedRedis) {
			this.resetSharedRedis = resetSharedRedis;
		}

		/**
		 * The {@code warden.test.reset-keys} property.
		 * @return its value
		 */
		public List<String> getResetKeys() {
			return resetKeys;
		}

		/**
		 * Sets the {@code warden.test.reset-keys} property.
		 * @param resetKeys the value
		 */
		public void setResetKeys(List<String> resetKeys) {
			this.resetKeys = resetKeys;
		}

	}

}
