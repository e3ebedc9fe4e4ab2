package dev.warden.samples.orders;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import dev.warden.Warden;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class EmbeddedRedisLauncherTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void startsAnEmbeddedRedisWhenNoneIsConfiguredAndTheDefaultPortIsFreeAndStopsItAfterTheApplication(
			CapturedOutput output) throws IOException {
		boolean[] redisUpWhileBeansWereDestroyed = new boolean[1];
		int embeddedPort;
		try (ConfigurableApplicationContext context = start("--sample.embedded-redis.default-port=" + freePort())) {
			int port = context.getEnvironment().getRequiredProperty("spring.data.redis.port", Integer.class);
			embeddedPort = port;
			// Destroyed with the application's beans, so it sees whether Redis is still up then.
			((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("probe",
					() -> redisUpWhileBeansWereDestroyed[0] = listening(port));
			assertThat(port).isNotEqualTo(redis.node().port());
			assertThat(context.getBean(OrderService.class).purchase("pear", 2).quantity()).isEqualTo(2);
			Warden warden = context.getBean(Warden.class);
			warden.getLock("probe").lock();
			assertThat(warden.getLock("probe").isLocked()).isTrue();
			warden.getLock("probe").unlock();
		}
		assertThat(redisUpWhileBeansWereDestroyed[0]).as("Redis up while the application shut down").isTrue();
		assertThat(listening(embeddedPort)).as("Redis stopped after it").isFalse();
		// Warden's connections closed before Redis went away: no reconnection attempts.
		assertThat(output).doesNotContain("Reconnecting").doesNotContain("Cannot reconnect");
	}

	@Test
	void usesTheConfiguredRedis() {
		try (ConfigurableApplicationContext context = start("--spring.data.redis.port=" + redis.node().port())) {
			context.getBean(Warden.class).getLock("configured").lock();
			assertThat(redis.node().call("EXISTS", "configured")).isEqualTo(1L);
			context.getBean(Warden.class).getLock("configured").unlock();
		}
	}

	private static ConfigurableApplicationContext start(String redisArgument) {
		return new SpringApplicationBuilder(OrderServiceApplication.class).run("--server.port=0", redisArgument,
				"--spring.datasource.url=jdbc:h2:mem:launcher-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
	}

	private static boolean listening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
