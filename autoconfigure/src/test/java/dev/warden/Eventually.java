package dev.warden;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes: for state with no event to wait on. */
public final class Eventually {

	private Eventually() {
	}

	public static void await(String what, BooleanSupplier condition) throws InterruptedException {
		await(what, Duration.ofSeconds(10), condition);
	}

	public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Not within " + timeout + ": " + what);
			}
			Thread.sleep(5);
		}
	}

	/** Like {@link #await(String, BooleanSupplier)} for use inside a thread: gives up quietly. */
	public static void awaitQuietly(BooleanSupplier condition) {
		try {
			await("condition", condition);
		}
		catch (InterruptedException | AssertionError ex) {
			Thread.currentThread().interrupt();
		}
	}

}
