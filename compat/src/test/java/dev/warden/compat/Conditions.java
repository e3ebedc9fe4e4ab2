package dev.warden.compat;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits, bounded, for what two versions on one Redis do. */
final class Conditions {

	private Conditions() {
	}

	/**
	 * Polls {@code condition} every 20 ms until it holds.
	 * @throws AssertionError naming {@code what} when it does not within 60 s
	 */
	static void awaitUntil(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Not within 60 s: " + what);
			}
			TimeUnit.MILLISECONDS.sleep(20);
		}
	}

}
