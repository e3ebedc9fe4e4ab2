/**
 * Internal: the JUnit 5 harness that runs real {@code redis-server} processes on free loopback
 * ports for Warden's own tests and {@code warden-test}, not for use by applications; may change in
 * any release.
 * <p>
 * One server ({@code RedisNode}, the binary it runs, the reaper of its process) is in the published
 * module {@code warden-test-redis}, which {@code warden-test} depends on and which declares this
 * package the same; here, on top of it, are the JUnit 5 extensions, the clusters, the Sentinels and
 * the proxy. The binary is the system {@code redis-server} when one is on the {@code PATH} (or
 * named by the {@code WARDEN_REDIS_SERVER} environment variable), otherwise the one shipped inside
 * the {@code com.github.codemonstur:embedded-redis} jar. Every server writes its log and data under
 * {@code target/redis-harness/}; servers are stopped by the test that started them, by a JVM
 * shutdown hook, and, when the JVM is killed, by a small reaper process that outlives it.
 */
@NullMarked
package dev.warden.test.redis;

import org.jspecify.annotations.NullMarked;
