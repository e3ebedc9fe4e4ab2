package dev.warden.samples.orders;

import java.io.IOException;
import java.net.ServerSocket;

import dev.warden.Warden;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedRedisLauncherTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void startsAnEmbeddedRedisWhenNoneIsConfiguredAndTheDefaultPortIsFree() throws IOException {
		try (ConfigurableApplicationContext context = start("--sample.embedded-redis.default-port=" + freePort())) {
			int port = context.getEnvironment().getRequiredProperty("spring.data.redis.port", Integer.class);
			assertThat(port).isNotEqualTo(redis.node().port());
			assertThat(context.getBean(OrderService.class).purchase("pear", 2).quantity()).isEqualTo(2);
			Warden warden = context.getBean(Warden.class);
			warden.getLock("probe").lock();
			assertThat(warden.getLock("probe").isLocked()).isTrue();
			warden.getLock("probe").unlock();
		}
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

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
