package dev.warden.test.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessReaperTests {

	@Test
	void serversOfAKilledJvmAreKilledToo() throws Exception {
		String java = ProcessHandle.current().info().command().orElse("java");
		Process jvm = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				"-Dwarden.redis-harness.dir=" + RedisNode.workDirectory(), ForkedNodeMain.class.getName())
			.redirectErrorStream(true)
			.start();
		long redisPid;
		try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			do {
				line = out.readLine();
				assertThat(line).as("the forked JVM's output").isNotNull();
			}
			while (!line.startsWith("redis-pid="));
			redisPid = Long.parseLong(line.substring("redis-pid=".length()));
		}
		Optional<ProcessHandle> redis = ProcessHandle.of(redisPid);
		assertThat(redis).get().matches(ProcessHandle::isAlive);

		jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
		assertThat(jvm.waitFor(10, TimeUnit.SECONDS)).isTrue();

		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (redis.get().isAlive() && System.nanoTime() < deadline) {
			TimeUnit.MILLISECONDS.sleep(50);
		}
		assertThat(redis.get().isAlive()).as("redis-server %d outlived its JVM", redisPid).isFalse();
		assertThat(Path.of(RedisNode.workDirectory().toString(), "pids-" + jvm.pid())).isEmptyDirectory();
	}

}
