package dev.warden;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** Assertions on a context that failed to start. */
public final class StartupFailures {

	private StartupFailures() {
	}

	/** Verifies that the context failed, with every fragment somewhere in the messages of the failure's chain. */
	public static void assertStartupFailure(AssertableApplicationContext context, String... fragments) {
		assertThat(context).hasFailed();
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		assertThat(messages.toString()).contains(fragments);
	}

}
