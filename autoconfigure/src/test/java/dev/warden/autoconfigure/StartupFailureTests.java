package dev.warden.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.warden.InvalidAnnotationException;
import dev.warden.RedisAuthenticationException;
import dev.warden.RedisUnavailableException;
import dev.warden.WardenApplications;
import dev.warden.WardenConfigurationException;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.test.redis.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup fails promptly, within the configured timeouts, saying what is wrong and what to do:
 * Redis silent, Redis down, credentials refused, a connection factory that is not Lettuce's, an
 * invalid annotation. Startup also says, in one INFO line, what this instance is.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTests {

	private final ApplicationContextRunner runner = WardenApplications.runner();

	@Test
	void aRedisThatAcceptsButNeverAnswersFailsStartupWithinTheTimeoutsNamingTheAddress() throws Exception {
		try (SilentServer silent = new SilentServer()) {
			long start = System.nanoTime();
			runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + silent.port(),
					"spring.data.redis.connect-timeout=1s", "warden.command-timeout=2s").run(context -> {
						RedisUnavailableException failure = failure(context, RedisUnavailableException.class);
						assertThat(failure).hasMessageContaining("standalone 127.0.0.1:" + silent.port())
							.hasMessageContaining("within 2000 ms");
						assertThat(analysis(context).getAction()).contains("warden.command-timeout")
							.contains("warden.enabled=false");
					});
			// Not the client's own minute-long handshake timeout.
			assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(30);
		}
	}

	@Test
	void aRedisThatIsDownFailsStartupAtOnceNamingTheAddress() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}
		runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort)
			.run(context -> {
				RedisUnavailableException failure = failure(context, RedisUnavailableException.class);
				assertThat(failure).isNotInstanceOf(RedisAuthenticationException.class)
					.hasMessageContaining("standalone 127.0.0.1:" + closedPort);
				assertThat(analysis(context).getDescription()).contains("127.0.0.1:" + closedPort);
			});
	}

	@Test
	void aWrongOrMissingPasswordFailsStartupSayingRedisRefusedTheCredentials() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("auth"))) {
			node.call("CONFIG", "SET", "requirepass", "right");
			for (String password : new String[] { "wrong", "" }) {
				runner.withPropertyValues("spring.data.redis.host=" + node.host(),
						"spring.data.redis.port=" + node.port(), "spring.data.redis.password=" + password)
					.run(context -> {
						RedisAuthenticationException failure = failure(context, RedisAuthenticationException.class);
						assertThat(failure).as(password).hasMessageContaining("refused Warden's credentials");
						assertThat(failure.getMessage()).as(password).containsAnyOf("WRONGPASS", "NOAUTH");
						assertThat(context.getStartupFailure()).hasMessageContaining("refused Warden's credentials");
						assertThat(analysis(context).getAction()).contains("spring.data.redis.password");
					});
			}
		}
	}

	@Test
	void aConnectionFactoryThatIsNotLettucesFailsStartupSayingWhatToDo() {
		runner.withUserConfiguration(NotLettuce.class).run(context -> {
			WardenConfigurationException failure = failure(context, WardenConfigurationException.class);
			assertThat(failure).hasMessageContaining("needs a Lettuce connection factory");
			assertThat(analysis(context).getAction()).contains("spring.data.redis.client-type=lettuce");
		});
	}

	@Test
	void anInvalidAnnotationFailsStartupWithAnAnalysis() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("annotation"))) {
			runner.withPropertyValues("spring.data.redis.host=" + node.host(), "spring.data.redis.port=" + node.port())
				.withUserConfiguration(BadKey.class)
				.run(context -> {
					InvalidAnnotationException failure = failure(context, InvalidAnnotationException.class);
					assertThat(failure).hasMessageContaining("BadKey$Service.call(String)");
					assertThat(analysis(context).getAction()).contains("-parameters");
				});
		}
	}

	@Test
	void aDelayedTaskArgumentTypeThatWouldLoseDataFailsStartupNamingBeanMethodAndType() {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("lossy"))) {
			runner.withPropertyValues("spring.data.redis.host=" + node.host(), "spring.data.redis.port=" + node.port())
				.withUserConfiguration(LossyTask.class)
				.run(context -> {
					InvalidAnnotationException failure = failure(context, InvalidAnnotationException.class);
					assertThat(failure).hasMessageContaining("bean 'lossy'")
						.hasMessageContaining("LossyTask$Lossy.close(Bag)")
						.hasMessageContaining("Bag.n is not written to JSON");
				});
		}
	}

	@Test
	void startupSaysInOneLineWhatThisInstanceIs(CapturedOutput output) {
		try (RedisNode node = RedisNode.start(RedisNode.config().name("report"))) {
			runner.withPropertyValues("spring.data.redis.host=" + node.host(), "spring.data.redis.port=" + node.port(),
					"warden.client-id=report-client")
				.run(context -> assertThat(context).hasNotFailed());
			assertThat(output).contains("Warden client report-client on standalone " + node.host() + ":" + node.port()
					+ ": consuming queues []; command timeout PT10S");
		}
	}

	private static <T extends Throwable> T failure(AssertableApplicationContext context, Class<T> type) {
		assertThat(context).hasFailed();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + context.getStartupFailure(),
				context.getStartupFailure());
	}

	private static FailureAnalysis analysis(AssertableApplicationContext context) {
		FailureAnalysis analysis = new WardenFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis").isNotNull();
		return analysis;
	}

	/** A TCP server on loopback that accepts connections and never answers. */
	private static final class SilentServer implements AutoCloseable {

		private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

		private final List<Socket> accepted = new ArrayList<>();

		private final Thread acceptor = new Thread(this::accept, "silent-redis");

		SilentServer() throws IOException {
			acceptor.setDaemon(true);
			acceptor.start();
		}

		int port() {
			return socket.getLocalPort();
		}

		private void accept() {
			while (!socket.isClosed()) {
				try {
					Socket client = socket.accept();
					synchronized (accepted) {
						accepted.add(client);
					}
				}
				catch (IOException ex) {
					return;
				}
			}
		}

		@Override
		public void close() throws IOException {
			socket.close();
			synchronized (accepted) {
				for (Socket client : accepted) {
					client.close();
				}
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotLettuce {

		@Bean
		RedisConnectionFactory redisConnectionFactory() {
			return new RedisConnectionFactory() {
				@Override
				public boolean getConvertPipelineAndTxResults() {
					return false;
				}

				@Override
				public RedisConnection getConnection() {
					throw new UnsupportedOperationException("never used");
				}

				@Override
				public RedisClusterConnection getClusterConnection() {
					throw new UnsupportedOperationException("never used");
				}

				@Override
				public RedisSentinelConnection getSentinelConnection() {
					throw new UnsupportedOperationException("never used");
				}

				@Override
				public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
					return null;
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LossyTask {

		@Bean
		Lossy lossy() {
			return new Lossy();
		}

		public static class Bag {

			private int n;

			public Bag(int n) {
				this.n = n;
			}

		}

		static class Lossy {

			@dev.warden.task.annotation.DelayedTask(delay = "1m")
			public void close(Bag bag) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKey {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@DistributedLock(key = "#id +")
			public void call(String id) {
			}

		}

	}

}
