package dev.warden.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

/**
 * A reply that stands for a command sent earlier: when it is cancelled or failed before the
 * command is answered (a caller's timeout), the command is cancelled too, so a command still
 * buffered during a reconnect is never sent. Costs no completion stage of its own, which matters on
 * a path taken twice per lock and unlock pair.
 *
 * @param <T> the reply type
 */
final class CommandReply<T> extends CompletableFuture<T> {

	private volatile Future<?> command;

	CommandReply(Future<?> command) {
		this.command = command;
	}

	/**
	 * The reply now stands for {@code next}, a command sent again in place of the first one (a
	 * script resent as text, or after a slot was busy); when the reply has ended already, that
	 * command is cancelled at once.
	 */
	void follow(Future<?> next) {
		command = next;
		if (isDone() && !next.isDone()) {
			next.cancel(false);
		}
	}

	@Override
	public boolean completeExceptionally(Throwable failure) {
		return cancelCommandIf(super.completeExceptionally(failure));
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		return cancelCommandIf(super.cancel(mayInterruptIfRunning));
	}

	/** Completes this reply as {@code whenComplete} reports an outcome: with the value, or the failure. */
	void settle(@Nullable T value, @Nullable Throwable failure) {
		if (failure == null) {
			complete(value);
		}
		else {
			completeExceptionally(failure);
		}
	}

	private boolean cancelCommandIf(boolean endedHere) {
		Future<?> current = command;
		if (endedHere && !current.isDone()) {
			current.cancel(false);
		}
		return endedHere;
	}

	/** Stages built on this reply are plain futures: they stand for no command of their own. */
	@Override
	public <U> CompletableFuture<U> newIncompleteFuture() {
		return new CompletableFuture<>();
	}

}
