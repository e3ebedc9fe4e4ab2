package dev.warden.benchmark;

import io.lettuce.core.resource.EpollProvider;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;

/**
 * The Netty transport both libraries run on: Java's NIO (each library's default) or Linux's native
 * epoll (Lettuce uses it whenever {@code netty-transport-native-epoll} is on the class path, Redisson
 * when its configuration says so). The benchmark has the native library for x86-64 Linux.
 */
final class Transport {

	/** Lettuce's switch, read once, when its first client resources are made. */
	private static final String LETTUCE_EPOLL = "io.lettuce.core.epoll";

	private static boolean epoll;

	private Transport() {
	}

	/**
	 * Chooses the transport; call before any Lettuce client exists.
	 * @param name {@code nio} or {@code epoll}
	 * @throws IllegalArgumentException for another name, or epoll where it cannot load
	 */
	static void use(String name) {
		switch (name) {
			case "nio" -> {
				System.setProperty(LETTUCE_EPOLL, "false");
				epoll = false;
			}
			case "epoll" -> {
				System.setProperty(LETTUCE_EPOLL, "true");
				if (!EpollProvider.isAvailable()) {
					throw new IllegalArgumentException("--transport=epoll: Netty's native epoll does not load here "
							+ "(it needs x86-64 Linux)");
				}
				epoll = true;
			}
			default -> throw new IllegalArgumentException("--transport must be nio or epoll: " + name);
		}
	}

	/** How the report names the transport. */
	static String describe() {
		return epoll ? "native epoll" : "NIO";
	}

	/** A Redisson configuration on the chosen transport. */
	static Config redissonConfig() {
		Config config = new Config();
		if (epoll) {
			config.setTransportMode(TransportMode.EPOLL);
		}
		return config;
	}

}
