package dev.warden.test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import dev.warden.lock.interceptor.LockCalls;
import dev.warden.lock.interceptor.LockOperation;

/**
 * Keeps which {@code @DistributedLock} methods ran under which locks during a test; a listener bean
 * of every {@link WardenTest} context, cleared before each test. See
 * {@link WardenAssertions#assertThatLocks(LockRecorder)}.
 */
public final class LockRecorder {

	/**
	 * One call of a {@code @DistributedLock} method that acquired its locks.
	 *
	 * @param method the annotated method
	 * @param names the lock names, sorted: the annotation's name, a colon, the key's value
	 * ({@code stock:apple})
	 * @param thread the thread that acquired them
	 * @param released whether the call has released them
	 */
	public record Held(Method method, List<String> names, String thread, boolean released) {

		/** {@return the method as {@code Type.method}} */
		public String methodName() {
			return method.getDeclaringClass().getSimpleName() + "." + method.getName();
		}

		@Override
		public String toString() {
			return methodName() + " under " + names + (released ? "" : " (still held)");
		}

	}

	// Guarded by this.
	private final List<Held> held = new ArrayList<>();

	private final String keyPrefix;

	/**
	 * @param keyPrefix the application's {@code warden.lock.key-prefix}, left out of the names kept
	 */
	LockRecorder(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * The lock aspect's listener that feeds this recorder: a bean of the test's context beside it.
	 */
	LockCalls.Listener listener() {
		return new LockCalls.Listener() {

			@Override
			public void onHeld(LockOperation operation, List<String> names) {
				recordHeld(operation.method(), names);
			}

			@Override
			public void onReleased(LockOperation operation, List<String> names) {
				recordReleased(operation.method(), names);
			}

		};
	}

	synchronized void recordHeld(Method method, List<String> names) {
		held.add(new Held(method, unprefixed(names), Thread.currentThread().getName(), false));
	}

	synchronized void recordReleased(Method method, List<String> names) {
		List<String> released = unprefixed(names);
		for (int i = held.size() - 1; i >= 0; i--) {
			Held call = held.get(i);
			if (!call.released() && call.method().equals(method) && call.names().equals(released)) {
				held.set(i, new Held(call.method(), call.names(), call.thread(), true));
				return;
			}
		}
	}

	/** {@return the calls that acquired their locks since the recorder was last cleared, in order} */
	public synchronized List<Held> held() {
		return List.copyOf(held);
	}

	private List<String> unprefixed(List<String> names) {
		return names.stream().map(name -> name.startsWith(keyPrefix) ? name.substring(keyPrefix.length()) : name).toList();
	}

	/** Forgets the calls. */
	public synchronized void clear() {
		held.clear();
	}

}
