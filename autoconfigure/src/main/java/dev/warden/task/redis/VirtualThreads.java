package dev.warden.task.redis;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

/**
 * Virtual threads where the Java running Warden has them (21 and later), reached reflectively so
 * that Warden's bytecode stays Java 17's.
 */
final class VirtualThreads {

	private static final @Nullable Method OF_VIRTUAL = method(Thread.class, "ofVirtual");

	private VirtualThreads() {
	}

	/** Whether this Java has virtual threads. */
	static boolean available() {
		return OF_VIRTUAL != null;
	}

	/**
	 * An executor that starts a virtual thread per task, named {@code <prefix><n>}.
	 * @throws IllegalStateException when this Java has no virtual threads
	 */
	static ExecutorService perTaskExecutor(String threadPrefix) {
		if (OF_VIRTUAL == null) {
			throw new IllegalStateException("Virtual threads need Java 21 or later");
		}
		try {
			Object builder = OF_VIRTUAL.invoke(null);
			Class<?> builderType = Class.forName("java.lang.Thread$Builder");
			builder = builderType.getMethod("name", String.class, long.class).invoke(builder, threadPrefix, 1L);
			ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
			return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
				.invoke(null, factory);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot create virtual threads on Java " + Runtime.version(), ex);
		}
	}

	private static @Nullable Method method(Class<?> type, String name) {
		try {
			return type.getMethod(name);
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

}
