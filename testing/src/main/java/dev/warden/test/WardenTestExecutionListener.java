package dev.warden.test;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Before each test of a {@link WardenTest} context: calls schedule again ({@link TaskModes}) and the
 * recorders are empty, whatever the previous test did.
 */
final class WardenTestExecutionListener implements TestExecutionListener, Ordered {

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		context.getBeanProvider(TaskModes.class).ifAvailable(TaskModes::reset);
		context.getBeanProvider(TaskRecorder.class).ifAvailable(TaskRecorder::clear);
		context.getBeanProvider(LockRecorder.class).ifAvailable(LockRecorder::clear);
	}

	@Override
	public int getOrder() {
		// Before the application's own listeners, after the context is loaded.
		return 1_500;
	}

}
