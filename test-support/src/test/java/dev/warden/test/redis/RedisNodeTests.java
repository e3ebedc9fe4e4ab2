package dev.warden.test.redis;

import java.nio.file.Files;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisNodeTests {

	@Test
	void startsAnsweringNodeWithLogUnderTarget() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("basic"))) {
			assertThat(node.call("PING")).isEqualTo("PONG");
			assertThat(node.call("SET", "k", "v")).isEqualTo("OK");
			assertThat(node.call("GET", "k")).isEqualTo("v");
			assertThat(node.directory()).startsWith(RedisNode.workDirectory());
			assertThat(node.logFile()).exists();
		}
	}

	@Test
	void restartKeepsPortAndAppendOnlyData() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("aof").appendOnly(true))) {
			int port = node.port();
			node.call("SET", "survivor", "yes");
			node.restart();
			assertThat(node.port()).isEqualTo(port);
			assertThat(node.call("GET", "survivor")).isEqualTo("yes");
		}
	}

	@Test
	void killedNodeRefusesConnectionsUntilRestarted() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("killed"))) {
			node.kill();
			assertThat(node.isRunning()).isFalse();
			assertThatThrownBy(() -> node.call("PING")).hasMessageContaining("PING");
			node.restart();
			assertThat(node.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void twoNodesAreIndependent() {
		try (RedisNode first = RedisNode.start(); RedisNode second = RedisNode.start()) {
			assertThat(first.port()).isNotEqualTo(second.port());
			first.call("SET", "only-here", "1");
			assertThat(second.call("EXISTS", "only-here")).isEqualTo(0L);
		}
	}

	@Test
	void stoppedNodeLeavesNoPidFile() throws Exception {
		RedisNode node = RedisNode.start(RedisNode.config().name("pidfile"));
		node.stop();
		try (var files = Files.list(RedisNode.workDirectory().resolve("pids-" + ProcessHandle.current().pid()))) {
			assertThat(files.map(path -> path.getFileName().toString())).noneMatch(file -> file.startsWith(node.name()));
		}
	}

}
