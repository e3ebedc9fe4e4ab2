package dev.warden.autoconfigure;

import java.util.List;

import dev.warden.RedisAuthenticationException;
import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenConfigurationException;
import dev.warden.aop.SelfInvocationCheck;
import dev.warden.lock.LockListener;
import dev.warden.lock.interceptor.LockOperationSource;
import dev.warden.ratelimit.interceptor.RateLimitOperationSource;
import dev.warden.task.TaskListener;
import dev.warden.task.TaskWriteDeferral;
import dev.warden.task.interceptor.DelayedTaskOperationSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link Warden} client on the application's own Lettuce client, so host, credentials, TLS,
 * Sentinel and Cluster settings are those of {@code spring.data.redis.*}.
 */
// After Spring Boot's Redis auto-configuration, named for both lines: Boot 4's, and Boot 3.5's.
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WardenProperties.class)
public final class WardenAutoConfiguration {

	/**
	 * Whether task handlers run on virtual threads: {@code warden.delayed-task.virtual-threads}
	 * when set, else Spring's own {@code spring.threads.virtual.enabled} (on Java 21 and later).
	 */
	static boolean virtualThreads(WardenProperties.DelayedTask tasks, Environment environment) {
		Boolean asked = tasks.getVirtualThreads();
		if (asked == null) {
			// Spring Boot's own rule (its Threading class, in another package on each Boot line).
			return Runtime.version().feature() >= 21
					&& environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false);
		}
		if (asked && Runtime.version().feature() < 21) {
			throw new WardenConfigurationException("warden.delayed-task.virtual-threads=true needs Java 21 or later, "
					+ "and this application runs on Java " + Runtime.version().feature(),
					"Run on Java 21 or later, or remove warden.delayed-task.virtual-threads (task handlers then run on "
							+ "platform threads)");
		}
		return asked;
	}

	/**
	 * Reports calls a bean makes on {@code this} to its own {@code @DistributedLock},
	 * {@code @RateLimited} and {@code @DelayedTask} methods, which its proxy never sees.
	 */
	@Bean
	static SelfInvocationCheck wardenSelfInvocationCheck(Environment environment,
			ObjectProvider<LockOperationSource> lockOperations, ObjectProvider<DelayedTaskOperationSource> taskOperations,
			ObjectProvider<RateLimitOperationSource> limitOperations) {
		WardenProperties properties = Binder.get(environment).bindOrCreate("warden", WardenProperties.class);
		SelfInvocationCheck.Advice locks = new SelfInvocationCheck.Advice("its own @DistributedLock",
				"runs without its lock", (method, targetClass) -> {
					LockOperationSource operations = lockOperations.getIfAvailable();
					return operations != null && operations.getOperation(method, targetClass) != null;
				}, true);
		SelfInvocationCheck.Advice tasks = new SelfInvocationCheck.Advice("its own @DelayedTask",
				"runs at once, inline, instead of being scheduled", (method, targetClass) -> {
					DelayedTaskOperationSource operations = taskOperations.getIfAvailable();
					return operations != null && operations.getOperation(method, targetClass) != null;
				}, false);
		SelfInvocationCheck.Advice limits = new SelfInvocationCheck.Advice("its own @RateLimited",
				"runs without its rate limit", (method, targetClass) -> {
					RateLimitOperationSource operations = limitOperations.getIfAvailable();
					return operations != null && operations.getOperation(method, targetClass) != null;
				}, true);
		return new SelfInvocationCheck(properties.getSelfInvocation(), List.of(locks, tasks, limits));
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisConnectionFactory.class)
	Warden warden(RedisConnectionFactory connectionFactory, WardenProperties properties,
			ObjectProvider<LockListener> lockListeners, ObjectProvider<TaskListener> taskListeners,
			ObjectProvider<ObservationRegistry> observationRegistry,
			RedLockNodeClients redLockNodeClients,
			ObjectProvider<TaskWriteDeferral> taskWriteDeferral, ObjectProvider<WardenBuilderCustomizer> customizers,
			Environment environment, BeanFactory beanFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new WardenConfigurationException("Warden needs a Lettuce connection factory, but the application's "
					+ "is a " + connectionFactory.getClass().getName(), "Set spring.data.redis.client-type=lettuce (and "
					+ "keep Lettuce on the classpath), or define a Warden bean of your own, or set warden.enabled=false");
		}
		if (!lettuce.isRunning()) {
			lettuce.start();
		}
		AbstractRedisClient client = lettuce.getRequiredNativeClient();
		WardenProperties.DelayedTask tasks = properties.getDelayedTask();
		Warden.Builder builder = Warden.builder(client)
			.commandTimeout(properties.getCommandTimeout())
			.namespace(properties.getNamespace())
			.lockNamePrefix(properties.getLock().getNamePrefix())
			.evictionPolicyCheck(properties.getEvictionPolicyCheck())
			.watchdogTimeout(properties.getLock().getWatchdogTimeout())
			.taskConcurrency(tasks.getConcurrency())
			.taskVirtualThreads(virtualThreads(tasks, environment))
			.taskDeadLetterRetention(tasks.getDeadLetterRetention())
			.taskNewerFormatGrace(tasks.getNewerFormatGrace())
			.taskDefaults(tasks.toConsumerOptions())
			.taskSweepInterval(tasks.getSweepInterval())
			.taskClaimAhead(tasks.getClaimAhead())
			.shutdownGrace(tasks.getShutdownGrace())
			.fleetAnnounceInterval(properties.getFleet().getAnnounceInterval())
			.taskMaxPayloadBytes(tasks.getMaxPayloadSize().toBytes())
			.taskReplicaSync(tasks.getReplicaSync().replicasOrAuto(), tasks.getReplicaSync().getTimeout())
			.replicaSync(properties.getLock().getReplicaSync().replicasOrAuto(),
					properties.getLock().getReplicaSync().getTimeout());
		if (properties.getConnections() != null) {
			builder.connections(properties.getConnections());
		}
		for (String queue : tasks.getQueues().keySet()) {
			builder.taskQueueDefaults(queue, tasks.toConsumerOptions(queue));
		}
		if (properties.getClientId() != null) {
			builder.clientId(properties.getClientId());
		}
		builder.lockListener(CompositeListeners.lockListener(lockListeners.orderedStream().toList()));
		builder.taskListener(CompositeListeners.taskListener(taskListeners.orderedStream().toList()));
		taskWriteDeferral.ifAvailable(builder::taskWriteDeferral);
		if (properties.getObservations().isEnabled()) {
			observationRegistry.ifAvailable(builder::observationRegistry);
		}
		// Programmatic queues store payloads with the application's own mapper too.
		builder.json(ApplicationJson.of(beanFactory));
		List<RedisClient> nodes = redLockNodeClients.connect(client);
		if (!nodes.isEmpty()) {
			builder.redLockNodes(nodes, properties.getRedlock().getNodeTimeout());
		}
		customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
		try {
			return builder.build();
		}
		catch (RedisAuthenticationException ex) {
			throw new RedisAuthenticationException("Warden cannot connect to Redis (" + RedisTopology.describe(lettuce)
					+ "): " + ex.getMessage(), ex);
		}
		catch (RedisUnavailableException ex) {
			throw new RedisUnavailableException("Warden cannot connect to Redis (" + RedisTopology.describe(lettuce)
					+ "): " + ex.getMessage(), ex);
		}
	}

	@Bean
	@ConditionalOnBean(Warden.class)
	WardenStartupReport wardenStartupReport(Warden warden, WardenProperties properties,
			RedisConnectionFactory connectionFactory) {
		String topology = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? RedisTopology.describe(lettuce) : "Redis";
		return new WardenStartupReport(warden, topology, properties);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedLockNodeClients wardenRedLockNodeClients(WardenProperties properties) {
		return new RedLockNodeClients(properties.getRedlock().getNodes());
	}

	/** Static: a bean post-processor, made before the connection factory it applies to. */
	@Bean
	static RedisClientKeeper wardenRedisClientKeeper() {
		return new RedisClientKeeper();
	}

	@Bean
	@ConditionalOnBean(Warden.class)
	WardenLifecycle wardenLifecycle(Warden warden) {
		return new WardenLifecycle(warden);
	}

}
