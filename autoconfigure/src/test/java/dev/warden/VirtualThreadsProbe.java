package dev.warden;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import dev.warden.lock.DistributedMutex;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.redis.TaskWorkers;
import dev.warden.task.redis.TaskWorkersTests;
import io.lettuce.core.RedisClient;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What {@link VirtualThreadsTests} runs on Java 21 or later, in a JVM of its own: thousands of
 * virtual threads contending for locks and scheduling tasks, task handlers on virtual threads (set on the builder, and
 * through Spring's {@code spring.threads.virtual.enabled}) and no more of them at once than the concurrency, all under a JFR recording of
 * {@code jdk.VirtualThreadPinned}. Compiled for Java 17 like the rest, so it reaches the Java 21
 * API reflectively. Prints one line per result, {@code DONE} last.
 * <p>
 * Arguments: Redis host, Redis port, the JFR file to write.
 */
public final class VirtualThreadsProbe {

	private VirtualThreadsProbe() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		Path recordingFile = Path.of(args[2]);
		try (Recording recording = new Recording()) {
			RedisClient redis = RedisClient.create("redis://" + host + ":" + port);
			try (Warden warden = Warden.builder(redis).taskVirtualThreads(true).build()) {
				// One call of each kind first, on this platform thread, as an application has made by
				// the time it is busy: what is measured is the steady state, not the lazy loading of
				// Lettuce's and the JDK's classes on a cold JVM (Warden loads its own, and warms its
				// JSON mapper, when the client is built).
				warmUp(warden);
				recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
				recording.start();
				contend("ONE_LOCK", 2_000, thread -> warden.getLock("vt:one"));
				contend("MANY_LOCKS", 5_000, thread -> warden.getLock("vt:many:" + (thread % 100)));
				contend("SIMPLE_LOCKS", 5_000, thread -> warden.getSimpleLock("vt:simple:" + (thread % 100)));
				schedule("SCHEDULED", 2_000, warden.getDelayedQueue("vt-schedules", String.class));
				handlers("BUILDER_HANDLERS", warden, "vt-builder");
				try (TaskWorkers workers = new TaskWorkers(2, "vt-gated-", true)) {
					System.out.println("GATED most=" + TaskWorkersTests.mostRunningAtOnce(workers));
				}
			}
			finally {
				redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
						dev.warden.autoconfigure.WardenAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=" + host, "spring.data.redis.port=" + port,
						"spring.threads.virtual.enabled=true")
				.run(context -> handlers("SPRING_HANDLERS", context.getBean(Warden.class), "vt-spring"));
			recording.stop();
			recording.dump(recordingFile);
		}
		pinned(recordingFile);
		System.out.println("DONE");
		System.out.flush();
	}

	private static void warmUp(Warden warden) throws Exception {
		for (DistributedMutex lock : List.of(warden.getLock("vt:warm-up"), warden.getSimpleLock("vt:warm-up-simple"))) {
			if (lock.tryLock(1, TimeUnit.SECONDS)) {
				lock.unlock();
			}
		}
		DelayedQueue<String> queue = warden.getDelayedQueue("vt-warm-up", String.class);
		queue.schedule("warm-up", "payload", Duration.ofHours(1));
		queue.cancel("warm-up");
	}

	/**
	 * Each of {@code threads} virtual threads takes its lock once, waiting as long as it takes (up
	 * to a minute), and checks that nobody else is inside that lock meanwhile.
	 */
	private static void contend(String label, int threads, IntFunction<DistributedMutex> lockOf) throws Exception {
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
		List<Future<?>> done = new ArrayList<>();
		ExecutorService virtual = virtualThreadPerTask();
		try {
			for (int t = 0; t < threads; t++) {
				int thread = t;
				done.add(virtual.submit(() -> {
					DistributedMutex lock = lockOf.apply(thread);
					AtomicInteger in = inside.computeIfAbsent(lock.getName(), name -> new AtomicInteger());
					if (!lock.tryLock(60, TimeUnit.SECONDS)) {
						return null;
					}
					try {
						if (in.incrementAndGet() > 1) {
							overlaps.incrementAndGet();
						}
						Thread.yield();
						in.decrementAndGet();
						acquired.incrementAndGet();
					}
					finally {
						lock.unlock();
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			virtual.shutdownNow();
		}
		System.out.println(label + " threads=" + threads + " acquired=" + acquired.get() + " overlaps=" + overlaps.get());
	}

	/** Each of {@code threads} virtual threads schedules a task; reports how many the queue holds. */
	private static void schedule(String label, int threads, DelayedQueue<String> queue) throws Exception {
		List<Future<?>> done = new ArrayList<>();
		ExecutorService virtual = virtualThreadPerTask();
		try {
			for (int t = 0; t < threads; t++) {
				String id = "task-" + t;
				done.add(virtual.submit(() -> queue.schedule(id, "payload", Duration.ofHours(1))));
			}
			for (Future<?> future : done) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			virtual.shutdownNow();
		}
		System.out.println(label + " threads=" + threads + " pending=" + queue.size());
	}

	/** Runs 20 tasks due at once and reports how many ran on virtual threads. */
	private static void handlers(String label, Warden warden, String queueName) throws Exception {
		DelayedQueue<String> queue = warden.getDelayedQueue(queueName, String.class);
		int tasks = 20;
		CountDownLatch ran = new CountDownLatch(tasks);
		AtomicInteger onVirtual = new AtomicInteger();
		TaskConsumer consumer = queue.consume(delivery -> {
			if (isVirtual(Thread.currentThread())) {
				onVirtual.incrementAndGet();
			}
			ran.countDown();
		});
		try {
			for (int i = 0; i < tasks; i++) {
				queue.schedule("task-" + i, "payload", Duration.ZERO);
			}
			boolean all = ran.await(30, TimeUnit.SECONDS);
			System.out.println(label + " ran=" + (tasks - ran.getCount()) + " virtual=" + onVirtual.get() + " all=" + all);
		}
		finally {
			consumer.close();
		}
	}

	/** Prints how many pinning events the recording holds, and how many have Warden's code on the stack. */
	private static void pinned(Path recordingFile) throws Exception {
		int total = 0;
		int inWarden = 0;
		for (RecordedEvent event : RecordingFile.readAllEvents(recordingFile)) {
			if (!event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
				continue;
			}
			total++;
			if (event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
				.anyMatch(VirtualThreadsProbe::isWardens)) {
				inWarden++;
				System.err.println("Pinned in Warden's code: " + event);
			}
		}
		System.out.println("PINNED total=" + total + " warden=" + inWarden);
	}

	private static boolean isWardens(RecordedFrame frame) {
		String type = frame.getMethod().getType().getName();
		return type.startsWith("dev.warden.") && !type.startsWith("dev.warden.VirtualThreadsProbe");
	}

	private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	private static boolean isVirtual(Thread thread) {
		try {
			return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

}
