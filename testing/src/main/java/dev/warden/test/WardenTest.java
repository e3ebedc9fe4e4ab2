package dev.warden.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring Boot test whose application uses Warden. When the test configures no Redis
 * ({@code spring.data.redis.url}, {@code host}, {@code port}, {@code sentinel.master} or
 * {@code cluster.nodes} are all unset), a real {@code redis-server} is started on a free loopback
 * port (the one on the {@code PATH}, else the binary of the embedded-redis jar), shared by every
 * test context of the JVM and stopped when the JVM exits, and {@code spring.data.redis.host} and
 * {@code port} point at it. The context then has a {@link TestRedis} bean.
 * <p>
 * Before each test, whatever the previous test did: calls of {@code @DelayedTask} methods schedule
 * again ({@link TaskModes}), the recorders ({@link TaskClock}'s, {@link LockRecorder}) are empty,
 * and, unless {@link #resetBeforeEach()} is {@code false}, Warden's state in Redis is reset and the
 * test clock is Redis's own again, as {@link TaskClock#reset()} does: the tasks, dead letters,
 * recurring plans, rate limiters and locks of the application's {@code warden.namespace}, the clock's
 * offset and the keys of {@code warden.test.reset-keys} are deleted (never {@code FLUSHALL}: other
 * keys stay), and the recurring tasks are planned anew. On a Redis that {@code @WardenTest} did not
 * start (the test sets {@code spring.data.redis.*}), which other services may share, nothing is
 * deleted unless {@code warden.test.reset-shared-redis=true}; the test runs on, and the context logs
 * once, at INFO, that its Redis is not reset.
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;WardenTest
 * class OrderTimeoutTests {
 *
 *     &#64;Autowired TaskClock clock;
 *
 *     &#64;Test
 *     void unpaidOrderIsClosed() {
 *         // No task, lock or clock offset of another test is left here.
 *     }
 * }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface WardenTest {

	/**
	 * Whether Warden's state in Redis and the test clock are reset before each test, as
	 * {@link TaskClock#reset()} does. {@code false} leaves what one test stored for the next (tests
	 * that build on each other, in an order they set); {@link TaskModes} and the recorders are reset
	 * either way.
	 * @return {@code true} by default
	 * @since 0.2.0
	 */
	boolean resetBeforeEach() default true;

}
