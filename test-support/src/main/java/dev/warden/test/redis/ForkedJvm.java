package dev.warden.test.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM on the test's own class path, running a main class of the test's: what a test needs
 * to kill a process that holds a lock ({@code SIGKILL}) or pause it ({@code SIGSTOP}, then
 * {@code SIGCONT}) by its PID. The child reads commands line by line on its standard input and
 * reports on its standard output; its standard error goes to {@code target/forked-jvm/<name>.log}.
 * Closing it kills it; a child whose parent died sees its standard input end.
 */
public final class ForkedJvm implements AutoCloseable {

	private final Process process;

	private final Writer input;

	private final BlockingQueue<String> output = new LinkedBlockingQueue<>();

	private ForkedJvm(Process process) {
		this.process = process;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readOutput, "forked-jvm-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts {@code main} in a new JVM with the running JVM's class path.
	 * @param name names the log file of its standard error
	 * @param main the main class
	 * @param args its arguments
	 * @return the running JVM
	 */
	public static ForkedJvm start(String name, Class<?> main, String... args) {
		return start(name, Path.of(System.getProperty("java.home")), List.of("-Xmx128m"), main, args);
	}

	/**
	 * Starts {@code main} in a new JVM of the given Java installation, with the running JVM's class
	 * path: for a test that needs a newer Java than the build's.
	 * @param name names the log file of its standard error
	 * @param javaHome the Java installation whose {@code bin/java} runs it
	 * @param options the JVM's options
	 * @param main the main class
	 * @param args its arguments
	 * @return the running JVM
	 */
	public static ForkedJvm start(String name, Path javaHome, List<String> options, Class<?> main, String... args) {
		List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin").resolve("java").toString(), "-cp",
				System.getProperty("java.class.path")));
		command.addAll(options);
		command.add(main.getName());
		command.addAll(List.of(args));
		try {
			Path logs = Files.createDirectories(Path.of("target", "forked-jvm"));
			return new ForkedJvm(new ProcessBuilder(command)
				.redirectError(ProcessBuilder.Redirect.to(logs.resolve(name + ".log").toFile()))
				.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + main.getName(), ex);
		}
	}

	/** The child's PID. */
	public long pid() {
		return process.pid();
	}

	/** Whether the child is still running. */
	public boolean isAlive() {
		return process.isAlive();
	}

	/**
	 * Waits for the next line of the child's output that starts with {@code prefix}, skipping others.
	 * @return the line
	 * @throws IllegalStateException when none comes within {@code timeout}
	 */
	public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String line = output.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (line == null) {
				throw new IllegalStateException("No line starting with '" + prefix + "' from JVM " + pid() + " within "
						+ timeout.toMillis() + " ms (alive: " + process.isAlive() + ")");
			}
			if (line.startsWith(prefix)) {
				return line;
			}
		}
	}

	/** The lines of output received so far and not yet taken, without waiting. */
	public List<String> drainLines() {
		List<String> lines = new ArrayList<>();
		output.drainTo(lines);
		return lines;
	}

	/** Sends the child one command line. */
	public void send(String line) {
		try {
			input.write(line + "\n");
			input.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("JVM " + pid() + " no longer reads its input", ex);
		}
	}

	/** Kills the child at once ({@code SIGKILL}) and waits for it to end. */
	public void kill() throws InterruptedException {
		process.destroyForcibly();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("JVM " + pid() + " still alive 10 s after SIGKILL");
		}
	}

	/** Stops the child ({@code SIGSTOP}): it keeps its sockets and its memory, and runs nothing. */
	public void pause() {
		signal("STOP");
	}

	/** Lets a stopped child run again ({@code SIGCONT}). */
	public void resume() {
		signal("CONT");
	}

	private void signal(String name) {
		Processes.signal(pid(), name);
	}

	@Override
	public void close() {
		if (process.isAlive()) {
			try {
				// A stopped process ends on SIGKILL too; continued, it also sees its input close.
				signal("CONT");
			}
			catch (RuntimeException ex) {
				// Ended meanwhile.
			}
			process.destroyForcibly();
			try {
				process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void readOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				output.add(line);
			}
		}
		catch (IOException ex) {
			// The child ended.
		}
	}

}
