package dev.warden.test;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.TestExecutionListener;

/**
 * Before each test of a {@link WardenTest} context: Warden's state in Redis and the test clock are
 * reset ({@link TaskClock#resetBeforeTest()}) unless {@link WardenTest#resetBeforeEach()} is
 * {@code false}, calls schedule again ({@link TaskModes}) and the recorders are empty, whatever the
 * previous test did.
 */
final class WardenTestExecutionListener implements TestExecutionListener, Ordered {

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		if (resetBeforeEach(testContext.getTestClass())) {
			context.getBeanProvider(TaskClock.class).ifAvailable(TaskClock::resetBeforeTest);
		}
		context.getBeanProvider(TaskModes.class).ifAvailable(TaskModes::reset);
		context.getBeanProvider(TaskRecorder.class).ifAvailable(TaskRecorder::clear);
		context.getBeanProvider(LockRecorder.class).ifAvailable(LockRecorder::clear);
	}

	/**
	 * The test class's {@link WardenTest#resetBeforeEach()}: on the class, a superclass or an
	 * enclosing class of a {@code @Nested} one, as the context found it; {@code true} when not found.
	 */
	static boolean resetBeforeEach(Class<?> testClass) {
		WardenTest annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, WardenTest.class);
		if (annotation != null) {
			return annotation.resetBeforeEach();
		}
		MergedAnnotation<WardenTest> merged = MergedAnnotations
			.from(testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
			.get(WardenTest.class);
		return !merged.isPresent() || merged.getBoolean("resetBeforeEach");
	}

	@Override
	public int getOrder() {
		// Before the application's own listeners, after the context is loaded.
		return 1_500;
	}

}
