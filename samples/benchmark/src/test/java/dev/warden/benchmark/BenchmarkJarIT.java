package dev.warden.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.test.redis.RedisBinary;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged benchmark runs as one jar with {@code java -jar}, anywhere: here in a tiny
 * configuration, on a {@code redis-server} binary named by {@code --redis-server}.
 */
class BenchmarkJarIT {

	@Test
	void theJarRunsOnTheRedisServerItIsPointedAt() throws Exception {
		Path jar = Path.of("target", "warden-benchmark.jar");
		assertThat(jar).as("the packaged benchmark").exists();
		Path server = RedisBinary.locate(Path.of("target", "redis-harness").toAbsolutePath());
		Path output = Path.of("target", "jar-run", "benchmark.md").toAbsolutePath();
		Files.createDirectories(output.getParent());
		Files.deleteIfExists(output);
		Path log = output.resolveSibling("benchmark.log");
		// The ceiling group alone: the scenarios themselves are BenchmarkSmokeTests' to run.
		int exit = run(jar, log, "--only=ceiling", "--run-ms=100", "--repetitions=1", "--redis-server=" + server,
				"--output=" + output);
		assertThat(exit).as(Files.readString(log)).isZero();
		assertThat(Files.readString(log)).contains("Running " + server);
		assertThat(Files.readString(output)).contains("| ceiling: no-op EVALSHA, 8 threads (ops/s) |", "NIO transport");

		// Both libraries on Netty's native epoll, whose library the jar carries for x86-64 Linux.
		int epoll = run(jar, log, "--transport=epoll", "--only=weight", "--run-ms=100", "--repetitions=1",
				"--redis-server=" + server, "--output=" + output);
		if (System.getProperty("os.name").equals("Linux") && List.of("amd64", "x86_64").contains(System.getProperty("os.arch"))) {
			assertThat(epoll).as(Files.readString(log)).isZero();
			assertThat(Files.readString(output)).contains("native epoll transport", "| client weight: connections opened |");
		}
		else {
			assertThat(epoll).isNotZero();
			assertThat(Files.readString(log)).contains("Netty's native epoll does not load here");
		}

		Path missing = output.resolveSibling("no-such-redis-server");
		assertThat(run(jar, log, "--only=ceiling", "--redis-server=" + missing)).isNotZero();
		assertThat(Files.readString(log)).contains(missing + " is not an executable file");
	}

	private static int run(Path jar, Path log, String... options) throws Exception {
		List<String> command = new java.util.ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString()));
		command.addAll(List.of(options));
		Process run = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			assertThat(run.waitFor(5, TimeUnit.MINUTES)).as("the run ended").isTrue();
			return run.exitValue();
		}
		finally {
			run.destroyForcibly();
		}
	}

}
