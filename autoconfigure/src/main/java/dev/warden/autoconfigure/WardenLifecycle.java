package dev.warden.autoconfigure;

import dev.warden.Warden;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@link Warden} client while the application shuts down: after the web server has
 * drained its requests (their locks released), before the Lettuce connection factory (phase 0)
 * shuts down the client that Warden's connections belong to.
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

	@Override
	public boolean isRunning() {
		return running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
