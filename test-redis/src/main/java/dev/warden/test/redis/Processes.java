package dev.warden.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What the harness does to processes and while it waits for them: signals, and polls with a deadline. */
final class Processes {

	private Processes() {
	}

	/**
	 * Sends {@code signal} ({@code STOP}, {@code CONT}...) to a process with {@code kill}.
	 * @throws IllegalStateException when {@code kill} fails
	 */
	static void signal(long pid, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + pid, ex);
		}
	}

	/**
	 * Polls {@code condition} every {@code every} until it holds.
	 * @return whether it held within {@code timeout}
	 */
	static boolean holdsWithin(Duration timeout, Duration every, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			try {
				TimeUnit.NANOSECONDS.sleep(every.toNanos());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting", ex);
			}
		}
		return true;
	}

	/**
	 * Polls {@code condition} until it holds.
	 * @throws IllegalStateException naming {@code what} when it does not within {@code timeout}
	 */
	static void await(String what, Duration timeout, BooleanSupplier condition) {
		if (!holdsWithin(timeout, Duration.ofMillis(20), condition)) {
			throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
		}
	}

}
