package dev.warden.test;

import java.util.List;
import java.util.Locale;

import dev.warden.task.EndedDelivery;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of a task that ran in this application during a test, as {@link TaskClock#advance}
 * returns it: through the real queue, the real handler, its lock and its transaction.
 */
public final class RanTask {

	private final EndedDelivery delivery;

	private final TaskArguments reader;

	RanTask(EndedDelivery delivery, TaskArguments reader) {
		this.delivery = delivery;
		this.reader = reader;
	}

	/** {@return the queue's name} */
	public String queue() {
		return delivery.queue();
	}

	/** {@return the task's id} */
	public String id() {
		return delivery.id();
	}

	/** {@return which delivery of the task it was, from 1} */
	public int attempt() {
		return delivery.attempt();
	}

	/**
	 * How the delivery ended, in the words of {@link EndedDelivery.Outcome}, which the meters group
	 * in two: {@link EndedDelivery.Outcome#COMPLETED COMPLETED} is what {@code warden.task.completed}
	 * counts and {@code warden.task.duration} tags {@code outcome=completed};
	 * {@link EndedDelivery.Outcome#RETRIED RETRIED}, {@link EndedDelivery.Outcome#DEAD_LETTER DEAD_LETTER}
	 * (also counted in {@code warden.task.dead}) and a failed {@link EndedDelivery.Outcome#SUPERSEDED
	 * SUPERSEDED} delivery are what {@code warden.task.failed} counts and {@code warden.task.duration}
	 * tags {@code outcome=failed}; {@link EndedDelivery.Outcome#UNRECORDED UNRECORDED} and
	 * {@link EndedDelivery.Outcome#LEFT LEFT} are counted by no counter. Each constant says more.
	 * @return how it ended
	 */
	public EndedDelivery.Outcome outcome() {
		return delivery.outcome();
	}

	/** {@return whether the handler returned} */
	public boolean completed() {
		return delivery.outcome() == EndedDelivery.Outcome.COMPLETED;
	}

	/** {@return what the handler threw, or why the payload could not be read; {@code null} when it returned} */
	public @Nullable Throwable failure() {
		return delivery.failure();
	}

	/** {@return the payload as stored: for a {@code @DelayedTask} method, its arguments' JSON} */
	public String payload() {
		return delivery.payload();
	}

	/**
	 * The arguments the task's {@code @DelayedTask} method got, read back from the payload as the
	 * method reads them.
	 * @return the arguments, in order
	 * @throws IllegalStateException when no {@code @DelayedTask} method of the application has the
	 * queue (a recurring task's)
	 */
	public List<@Nullable Object> arguments() {
		return reader.read(queue(), id(), payload());
	}

	/**
	 * One argument the task's method got.
	 * @param index its position, from 0
	 * @param type its type
	 * @param <T> that type
	 * @return the argument
	 */
	public <T> @Nullable T argument(int index, Class<T> type) {
		return reader.read(queue(), id(), payload(), index, type);
	}

	@Override
	public String toString() {
		Throwable failure = failure();
		return queue() + "/" + id() + " (attempt " + attempt() + ", " + outcome().name().toLowerCase(Locale.ROOT)
				+ ((failure != null) ? ": " + failure : "") + ")";
	}

}
