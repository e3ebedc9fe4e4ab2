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
 * {@code port} point at it. The context then has a {@link TestRedis} bean, to clear the server
 * between tests.
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;WardenTest
 * class OrderTimeoutTests {
 *
 *     &#64;Autowired TestRedis redis;
 *
 *     &#64;BeforeEach
 *     void clean() {
 *         redis.flushAll();
 *     }
 * }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface WardenTest {

}
