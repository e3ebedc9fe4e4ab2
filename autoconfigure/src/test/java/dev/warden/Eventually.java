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
		if (!holdsWithin(timeout, condition)) {
			throw new AssertionError("Not within " + timeout + ": " + what);
		}
	}

	/**
	 * Polls like {@link #await(String, Duration, BooleanSupplier)}, for a caller that reports the
	 * outcome itself.
	 * @return whether the condition held within the timeout
	 */
	public static boolean holdsWithin(Duration timeout, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			Thread.sleep(5);
		}
		return true;
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
