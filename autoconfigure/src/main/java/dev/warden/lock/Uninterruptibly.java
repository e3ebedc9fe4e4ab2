package dev.warden.lock;

/**
 * Runs an interruptible wait to completion, as {@link java.util.concurrent.locks.Lock#lock()}
 * requires: an interrupt is remembered, the wait goes on, and the thread's interrupt status is
 * restored at the end.
 */
public final class Uninterruptibly {

	private Uninterruptibly() {
	}

	/** A wait that may be interrupted. */
	@FunctionalInterface
	public interface Wait<T> {

		/**
		 * Waits.
		 * @return the wait's result
		 * @throws InterruptedException when the thread is interrupted while it waits
		 */
		T run() throws InterruptedException;

	}

	/**
	 * Runs {@code wait} until it completes without being interrupted.
	 * @param wait the wait
	 * @param <T> its result type
	 * @return its result
	 */
	public static <T> T await(Wait<T> wait) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return wait.run();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
