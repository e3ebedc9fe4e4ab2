package dev.warden.docs;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes compiled from a page in a class loader of their own, holding the test class path
 * again, so that each page's tests start from a fresh Spring Boot: its caches (the configuration
 * class found for a package, the test contexts) hold classes of one page's class loader only.
 */
final class PageTestRun {

	private PageTestRun() {
	}

	/**
	 * Runs the classes in a fresh class loader over {@code classPath}.
	 * @return the failures, as JUnit prints them, and the number of tests that passed
	 */
	static Result run(String classPath, List<String> classNames) throws Exception {
		List<URL> urls = new ArrayList<>();
		for (String entry : classPath.split(File.pathSeparator)) {
			if (!entry.isBlank()) {
				urls.add(Path.of(entry).toUri().toURL());
			}
		}
		try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
				ClassLoader.getPlatformClassLoader())) {
			Thread thread = Thread.currentThread();
			ClassLoader previous = thread.getContextClassLoader();
			thread.setContextClassLoader(loader);
			try {
				Method launch = loader.loadClass(PageTestRun.class.getName()).getDeclaredMethod("launch", List.class);
				launch.setAccessible(true);
				Object[] result = (Object[]) launch.invoke(null, classNames);
				return new Result((String) result[0], (Long) result[1], (Long) result[2]);
			}
			finally {
				thread.setContextClassLoader(previous);
			}
		}
	}

	/** Called inside the fresh class loader: only JDK types cross it. */
	@SuppressWarnings("unused")
	private static Object[] launch(List<String> classNames) throws ClassNotFoundException {
		ClassLoader loader = Thread.currentThread().getContextClassLoader();
		List<DiscoverySelector> selectors = new ArrayList<>();
		for (String name : classNames) {
			selectors.add(DiscoverySelectors.selectClass(loader.loadClass(name)));
		}
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(),
				listener);
		TestExecutionSummary summary = listener.getSummary();
		StringWriter failures = new StringWriter();
		summary.printFailuresTo(new PrintWriter(failures), 30);
		return new Object[] { failures.toString(), summary.getTotalFailureCount(), summary.getTestsSucceededCount() };
	}

	/**
	 * What a run gave.
	 * @param failures the failures as JUnit prints them
	 * @param failed how many tests failed
	 * @param succeeded how many passed
	 */
	record Result(String failures, long failed, long succeeded) {
	}

}
