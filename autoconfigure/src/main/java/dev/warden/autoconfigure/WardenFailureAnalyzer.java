package dev.warden.autoconfigure;

import dev.warden.InvalidAnnotationException;
import dev.warden.RedisAuthenticationException;
import dev.warden.RedisUnavailableException;
import dev.warden.WardenConfigurationException;
import dev.warden.WardenException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns Warden's startup failures into a description and an action, instead of a stack trace:
 * Redis unreachable or silent, Redis refusing the credentials, a configuration Warden cannot work
 * with, an annotation that cannot work as written.
 */
final class WardenFailureAnalyzer extends AbstractFailureAnalyzer<WardenException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, WardenException cause) {
		if (cause instanceof RedisAuthenticationException) {
			return new FailureAnalysis(cause.getMessage(), "Check the credentials of the application's Redis "
					+ "connections, which Warden's share: spring.data.redis.username and spring.data.redis.password "
					+ "(or those in spring.data.redis.url). With Redis ACLs, the user also needs the commands "
					+ "Warden runs: EVALSHA, EVAL, SCRIPT LOAD, PUBLISH, SUBSCRIBE and UNSUBSCRIBE, and read and "
					+ "write access to the keys it locks.", cause);
		}
		if (cause instanceof RedisUnavailableException) {
			return new FailureAnalysis(cause.getMessage(), "Make sure Redis is running and reachable at the "
					+ "address above (spring.data.redis.host and spring.data.redis.port, or the Sentinel or Cluster "
					+ "nodes). Startup waits for Redis at most the longer of spring.data.redis.connect-timeout and "
					+ "warden.command-timeout. To start without Redis, set warden.enabled=false: @DistributedLock "
					+ "methods then run without a lock, and @DelayedTask methods fail when called.", cause);
		}
		if (cause instanceof InvalidAnnotationException) {
			return new FailureAnalysis(cause.getMessage(), "Correct the annotation named above: its expression "
					+ "(parameter names need the -parameters compiler flag, or use #p0, #p1...), its fallback "
					+ "method, or the method it is on.", cause);
		}
		if (cause instanceof WardenConfigurationException configuration) {
			return new FailureAnalysis(configuration.getMessage(), configuration.getAction(), cause);
		}
		return null;
	}

}
