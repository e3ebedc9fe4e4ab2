package dev.warden.autoconfigure;

import dev.warden.Warden;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@link Warden} client while the application shuts down: after the web server has
 * drained its requests (their locks released), before the Lettuce connection factory (phase 0)
 * shuts down the client that Warden's connections belong to. A pause of the context (Spring
 * Framework 7's, as the test framework does to a cached context it does not use) leaves the client
 * open: the consumers stop with their registrars' pause and start again with the restart, on the
 * same client ({@link RedisClientKeeper} keeps the Lettuce client it uses running).
 */
final class WardenLifecycle implements SmartLifecycle {

	/** After the web server's graceful shutdown, well before the connection factory's phase 0. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private final Warden warden;

	private volatile boolean running;

	WardenLifecycle(Warden warden) {
		this.warden = warden;
	}

	@Override
	public void start() {
		running = true;
	}

	@Override
	public void stop() {
		running = false;
		warden.close();
	}

	/**
	 * Not stopped by a pause of the context: a closed client cannot be opened again, and the beans
	 * that hold it would be left with it. (Spring Framework 7's {@code SmartLifecycle#isPauseable};
	 * on earlier versions, which do not pause, it is never called.)
	 * @return {@code false}
	 */
	public boolean isPauseable() {
		return false;
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
