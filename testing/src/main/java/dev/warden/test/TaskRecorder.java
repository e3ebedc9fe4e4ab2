package dev.warden.test;

import java.util.ArrayList;
import java.util.List;

import dev.warden.task.EndedDelivery;
import dev.warden.task.TaskListener;

/**
 * Keeps what this application's task handlers ran during a test, and how many run now; a
 * {@link TaskListener} bean of every {@link WardenTest} context. Cleared before each test.
 */
public final class TaskRecorder implements TaskListener {

	private final TaskArguments arguments;

	// Guarded by this.
	private final List<RanTask> ran = new ArrayList<>();

	private int running;

	TaskRecorder(TaskArguments arguments) {
		this.arguments = arguments;
	}

	@Override
	public synchronized void onStarted(String queue, long latenessNanos) {
		running++;
	}

	@Override
	public void onEnded(EndedDelivery delivery) {
		RanTask task = new RanTask(delivery, arguments);
		synchronized (this) {
			ran.add(task);
			running--;
			notifyAll();
		}
	}

	/** {@return every delivery that ended since the recorder was last cleared, in the order they ended} */
	public synchronized List<RanTask> ran() {
		return List.copyOf(ran);
	}

	/** Forgets what ran. */
	public synchronized void clear() {
		ran.clear();
	}

	synchronized int size() {
		return ran.size();
	}

	synchronized List<RanTask> since(int index) {
		return List.copyOf(ran.subList(Math.min(index, ran.size()), ran.size()));
	}

	/** How many deliveries run now. */
	synchronized int running() {
		return running;
	}

	/** Waits at most {@code millis} for a delivery to end. */
	synchronized void awaitChange(long millis) throws InterruptedException {
		if (millis > 0) {
			wait(millis);
		}
	}

}
