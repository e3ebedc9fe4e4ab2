package dev.warden.samples.orders;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.Map;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import redis.embedded.RedisServer;

/**
 * Sample only: starts an embedded Redis when the application configures none and nothing
 * listens on the default port, so the sample runs on a machine without Redis. Warden's starter
 * never starts servers.
 */
public class EmbeddedRedisLauncher implements SmartApplicationListener {

	private static final String[] REDIS_SETTINGS = { "spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.master", "spring.data.redis.cluster.nodes" };

	private RedisServer server;

	// Stops the server if the JVM exits before the application context is prepared.
	private final Thread stopOnExit = new Thread(this::stop, "embedded-redis-stop");

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && server != null) {
			// Registered before every bean, so destroyed after all of them: Redis stops once the
			// application (Warden's consumers and connections included) has shut down, not beside it.
			ConfigurableListableBeanFactory beans = prepared.getApplicationContext().getBeanFactory();
			if (beans instanceof DefaultListableBeanFactory registry) {
				registry.registerDisposableBean("sampleEmbeddedRedis", this::stop);
				// The context's own shutdown now stops it; a JVM hook of its own would race with that.
				Runtime.getRuntime().removeShutdownHook(stopOnExit);
			}
		}
	}

	private void startIfNeeded(ConfigurableEnvironment environment) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)) {
			return;
		}
		for (String setting : REDIS_SETTINGS) {
			if (environment.containsProperty(setting)) {
				return;
			}
		}
		int defaultPort = environment.getProperty("sample.embedded-redis.default-port", Integer.class, 6379);
		if (listening(defaultPort)) {
			return;
		}
		int port = freePort();
		try {
			server = RedisServer.newRedisServer()
				.port(port)
				.bind("127.0.0.1")
				.setting("dir " + Files.createTempDirectory("order-service-redis"))
				.setting("appendonly no")
				.build();
			server.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the sample's embedded Redis", ex);
		}
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
		Runtime.getRuntime().addShutdownHook(stopOnExit);
		System.out.println("Started an embedded Redis on 127.0.0.1:" + port + " (no Redis configured)");
	}

	private synchronized void stop() {
		if (server != null) {
			try {
				server.stop();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			server = null;
		}
	}

	private static boolean listening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
