package dev.warden;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.warden.test.redis.ForkedJvm;
import dev.warden.test.redis.JavaHomes;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client closes while tasks claimed beyond its one handler slot wait behind a long handler: no
 * handler starts once it closed (the tasks are delivered again after their visibility timeout), on
 * platform threads as on virtual ones ({@link VirtualThreadsCloseProbe}).
 */
class VirtualThreadsCloseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void noHandlerStartsAfterTheClientClosedOnPlatformThreads() throws Exception {
		try (ForkedJvm probe = ForkedJvm.start("close-platform", VirtualThreadsCloseProbe.class, redis.node().host(),
				Integer.toString(redis.node().port()), "false")) {
			assertThat(probe.awaitLine("PLATFORM", Duration.ofMinutes(2))).isEqualTo("PLATFORM startedAfterClose=0");
			probe.awaitLine("DONE", Duration.ofMinutes(1));
		}
	}

	@Test
	void noHandlerStartsAfterTheClientClosedOnVirtualThreads() throws Exception {
		Optional<Path> java = JavaHomes.atLeast(21);
		assumeTrue(java.isPresent(), "No Java 21 or later on this machine: set " + JavaHomes.VARIABLE);
		try (ForkedJvm probe = ForkedJvm.start("close-virtual", java.get(), List.of("-Xmx256m"),
				VirtualThreadsCloseProbe.class, redis.node().host(), Integer.toString(redis.node().port()), "true")) {
			assertThat(probe.awaitLine("VIRTUAL", Duration.ofMinutes(2))).as("see target/forked-jvm/close-virtual.log")
				.isEqualTo("VIRTUAL startedAfterClose=0");
			probe.awaitLine("DONE", Duration.ofMinutes(1));
		}
	}

}
