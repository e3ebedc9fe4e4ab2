/**
 * Internal: the {@code redis-server} process that {@code warden-test} and Warden's own test harness
 * start, not for use by applications; may change in any release.
 * <p>
 * {@code RedisNode} runs one server on a free loopback port and talks to it in RESP. The binary is
 * the system {@code redis-server} when one is on the {@code PATH} (or named by the
 * {@code WARDEN_REDIS_SERVER} environment variable), otherwise the one shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar. Every server writes its log and data under
 * {@code target/redis-harness/}; servers are stopped by whoever started them, by a JVM shutdown
 * hook, and, when the JVM is killed, by a small reaper process that outlives it. In the module
 * {@code warden-test-redis}, published for {@code warden-test}; the JUnit 5 extensions, clusters
 * and Sentinels of the same package are in the internal {@code warden-test-support}.
 */
@NullMarked
package dev.warden.test.redis;

import org.jspecify.annotations.NullMarked;
