package dev.warden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.JavaHomes;
import dev.warden.test.redis.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Warden on virtual threads. The build's Java is 17, so the contention and the handlers run in a
 * JVM of a Java 21 or later found on the machine ({@link JavaHomes}; CI makes sure there is one),
 * with {@link VirtualThreadsProbe}: thousands of virtual threads on one lock and on many locks all
 * get their lock, one at a time, and JFR records no pinning with Warden's code on the stack.
 */
class VirtualThreadsTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void thousandsOfVirtualThreadsContendWithoutPinningOrLostWakeUpsAndHandlersRunOnVirtualThreads()
			throws Exception {
		Optional<Path> java = JavaHomes.atLeast(21);
		assumeTrue(java.isPresent(), "No Java 21 or later on this machine: set " + JavaHomes.VARIABLE);
		Path recording = Files.createDirectories(Path.of("target")).resolve("virtual-threads.jfr").toAbsolutePath();
		try (ForkedJvm probe = ForkedJvm.start("virtual-threads", java.get(), List.of("-Xmx512m"),
				VirtualThreadsProbe.class, redis.node().host(), Integer.toString(redis.node().port()),
				recording.toString())) {
			Duration bound = Duration.ofMinutes(3);
			assertThat(probe.awaitLine("ONE_LOCK", bound)).isEqualTo("ONE_LOCK threads=2000 acquired=2000 overlaps=0");
			assertThat(probe.awaitLine("MANY_LOCKS", bound))
				.isEqualTo("MANY_LOCKS threads=5000 acquired=5000 overlaps=0");
			assertThat(probe.awaitLine("SIMPLE_LOCKS", bound))
				.isEqualTo("SIMPLE_LOCKS threads=5000 acquired=5000 overlaps=0");
			assertThat(probe.awaitLine("SCHEDULED", bound)).isEqualTo("SCHEDULED threads=2000 pending=2000");
			assertThat(probe.awaitLine("BUILDER_HANDLERS", bound)).isEqualTo("BUILDER_HANDLERS ran=20 virtual=20 all=true");
			assertThat(probe.awaitLine("GATED", bound)).as("handlers at once, with four times the concurrency reserved")
				.isEqualTo("GATED most=2");
			assertThat(probe.awaitLine("SPRING_HANDLERS", bound)).isEqualTo("SPRING_HANDLERS ran=20 virtual=20 all=true");
			assertThat(probe.awaitLine("PINNED", bound)).as("see target/forked-jvm/virtual-threads.log")
				.endsWith(" warden=0");
			probe.awaitLine("DONE", bound);
		}
	}

	@Test
	void virtualThreadsAskedForUnderJava17FailStartupNamingTheProperty() {
		assumeTrue(Runtime.version().feature() < 21, "runs where virtual threads are missing");
		runner().withPropertyValues("warden.delayed-task.virtual-threads=true")
			.run(context -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("warden.delayed-task.virtual-threads=true needs Java 21 or later"));
		RedisClient client = RedisClient.create();
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> Warden.builder(client).taskVirtualThreads(true))
				.withMessageContaining("Java 21");
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	@Test
	void springsVirtualThreadsPropertyIsIgnoredUnderJava17AsSpringIgnoresIt() {
		assumeTrue(Runtime.version().feature() < 21, "runs where virtual threads are missing");
		runner().withPropertyValues("spring.threads.virtual.enabled=true")
			.run(context -> assertThat(context).hasNotFailed().hasSingleBean(Warden.class));
	}

	private static ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
					"spring.data.redis.port=" + redis.node().port());
	}

}
