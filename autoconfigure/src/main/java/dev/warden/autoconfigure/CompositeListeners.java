package dev.warden.autoconfigure;

import java.util.List;

import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.lock.interceptor.LockOperation;
import dev.warden.ratelimit.RateLimitDecision;
import dev.warden.ratelimit.RateLimitListener;
import dev.warden.task.EndedDelivery;
import dev.warden.task.TaskListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's listener beans as one listener each: every listener is told in turn, and one
 * that throws is logged without keeping the others from being told.
 */
final class CompositeListeners {

	private static final Logger logger = LoggerFactory.getLogger(CompositeListeners.class);

	private CompositeListeners() {
	}

	static LockListener lockListener(List<LockListener> listeners) {
		if (listeners.size() <= 1) {
			return listeners.isEmpty() ? LockListener.NONE : listeners.get(0);
		}
		return new LockListener() {

			@Override
			public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
				listeners.forEach(listener -> call(listener, () -> listener.onLeaseLost(lockName, owner, cause)));
			}

		};
	}

	static LockCalls.Listener lockCallListener(List<LockCalls.Listener> listeners) {
		if (listeners.size() <= 1) {
			return listeners.isEmpty() ? LockCalls.Listener.NONE : listeners.get(0);
		}
		return new LockCalls.Listener() {

			@Override
			public void onAcquire(LockOperation operation, LockCalls.Outcome outcome, long waitNanos) {
				listeners.forEach(listener -> call(listener, () -> listener.onAcquire(operation, outcome, waitNanos)));
			}

			@Override
			public void onRelease(LockOperation operation, long heldNanos) {
				listeners.forEach(listener -> call(listener, () -> listener.onRelease(operation, heldNanos)));
			}

			@Override
			public void onHeld(LockOperation operation, List<String> names) {
				listeners.forEach(listener -> call(listener, () -> listener.onHeld(operation, names)));
			}

			@Override
			public void onReleased(LockOperation operation, List<String> names) {
				listeners.forEach(listener -> call(listener, () -> listener.onReleased(operation, names)));
			}

		};
	}

	static RateLimitListener rateLimitListener(List<RateLimitListener> listeners) {
		if (listeners.size() <= 1) {
			return listeners.isEmpty() ? RateLimitListener.NONE : listeners.get(0);
		}
		return new RateLimitListener() {

			@Override
			public void onDecision(String name, RateLimitDecision decision) {
				listeners.forEach(listener -> call(listener, () -> listener.onDecision(name, decision)));
			}

		};
	}

	static TaskListener taskListener(List<TaskListener> listeners) {
		if (listeners.size() <= 1) {
			return listeners.isEmpty() ? TaskListener.NONE : listeners.get(0);
		}
		return new TaskListener() {

			@Override
			public void onScheduled(String queue, int count) {
				listeners.forEach(listener -> call(listener, () -> listener.onScheduled(queue, count)));
			}

			@Override
			public void onConsumerStarted(String queue) {
				listeners.forEach(listener -> call(listener, () -> listener.onConsumerStarted(queue)));
			}

			@Override
			public void onStarted(String queue, long latenessNanos) {
				listeners.forEach(listener -> call(listener, () -> listener.onStarted(queue, latenessNanos)));
			}

			@Override
			public void onCompleted(String queue, long durationNanos) {
				listeners.forEach(listener -> call(listener, () -> listener.onCompleted(queue, durationNanos)));
			}

			@Override
			public void onFailed(String queue, long durationNanos, boolean dead) {
				listeners.forEach(listener -> call(listener, () -> listener.onFailed(queue, durationNanos, dead)));
			}

			@Override
			public void onDeferred(String queue, String reason) {
				listeners.forEach(listener -> call(listener, () -> listener.onDeferred(queue, reason)));
			}

			@Override
			public void onEnded(EndedDelivery delivery) {
				listeners.forEach(listener -> call(listener, () -> listener.onEnded(delivery)));
			}

		};
	}

	private static void call(Object listener, Runnable event) {
		try {
			event.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Listener {} failed; the other listeners are still told", listener, ex);
		}
	}

}
