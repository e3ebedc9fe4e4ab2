package dev.warden.statemachine;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;

/**
 * Runs random sequences of operations against a real system and a model of what it promises, and
 * shrinks a failing sequence to a short one before reporting it with its seed.
 * <p>
 * Each sequence is generated from its own seed, {@code base + index}, so a failure is replayed with
 * {@code -Dwarden.statemachine.seed=<seed> -Dwarden.statemachine.sequences=1}. The systems run in
 * real time on real Redis, so a replay meets the same operations, though not always the same
 * interleaving: shrinking keeps a shorter sequence only when it still fails, trying each candidate
 * twice.
 *
 * @param <O> the operations
 */
final class StateMachine<O> {

	/** The seed of the first sequence: {@code warden.statemachine.seed}, else a fixed one per machine. */
	static long baseSeed(long fixed) {
		String seed = System.getProperty("warden.statemachine.seed", "");
		return seed.isBlank() ? fixed : Long.parseLong(seed.trim());
	}

	/** How many sequences a run tries: {@code warden.statemachine.sequences}, else the default. */
	static int sequences(int byDefault) {
		return Integer.getInteger("warden.statemachine.sequences", byDefault);
	}

	/** How many operations a sequence has: {@code warden.statemachine.steps}, else the default. */
	static int steps(int byDefault) {
		return Integer.getInteger("warden.statemachine.steps", byDefault);
	}

	/** Runs one sequence, throwing an {@link AssertionError} naming the first promise it breaks. */
	interface Subject<O> {

		void run(List<O> operations) throws Exception;

	}

	private final String name;

	private final BiFunction<Random, Integer, List<O>> generator;

	private final Subject<O> subject;

	/** How long shrinking may take, in ms. */
	private final long shrinkMillis;

	/** How many operations at the start of a sequence shrinking keeps (its setting up). */
	private final int kept;

	StateMachine(String name, BiFunction<Random, Integer, List<O>> generator, Subject<O> subject, long shrinkMillis) {
		this(name, generator, subject, shrinkMillis, 0);
	}

	StateMachine(String name, BiFunction<Random, Integer, List<O>> generator, Subject<O> subject, long shrinkMillis,
			int kept) {
		this.name = name;
		this.generator = generator;
		this.subject = subject;
		this.shrinkMillis = shrinkMillis;
		this.kept = kept;
	}

	/**
	 * Runs {@code sequences} sequences of {@code steps} operations.
	 * @throws AssertionError for the first failing sequence: its seed, the shrunk sequence, and the
	 * promise it broke
	 */
	void check(long baseSeed, int sequences, int steps) throws Exception {
		for (int index = 0; index < sequences; index++) {
			long seed = baseSeed + index;
			List<O> operations = generator.apply(new Random(seed), steps);
			AssertionError failure = failure(operations);
			if (failure != null) {
				List<O> shrunk = shrink(operations, failure);
				AssertionError shrunkFailure = failure(shrunk);
				AssertionError reported = (shrunkFailure != null) ? shrunkFailure : failure;
				String replayed = (shrunkFailure != null) ? "" : " (the shrunk sequence broke it while shrinking, not"
						+ " on its last run: the promise broken first is reported)";
				StringBuilder message = new StringBuilder(name).append(": seed ").append(seed).append(" (replay with")
					.append(" -Dwarden.statemachine.seed=").append(seed)
					.append(" -Dwarden.statemachine.sequences=1 -Dwarden.statemachine.steps=").append(steps)
					.append(") broke a promise after ").append(operations.size()).append(" operations, shrunk to ")
					.append(shrunk.size()).append(replayed).append(":");
				for (O operation : shrunk) {
					message.append("\n  ").append(operation);
				}
				message.append("\n").append(reported.getMessage());
				AssertionError error = new AssertionError(message.toString(), reported);
				throw error;
			}
		}
	}

	private AssertionError failure(List<O> operations) throws Exception {
		try {
			subject.run(operations);
			return null;
		}
		catch (AssertionError ex) {
			return ex;
		}
	}

	/**
	 * What a failure says with its numbers (steps, ids, times) left out: a shorter sequence is kept
	 * only when it breaks the same promise.
	 */
	static String signature(AssertionError failure) {
		String message = String.valueOf(failure.getMessage());
		return message.replaceAll("^step \\d+ \\(.*?\\): ", "").replaceAll("[0-9]+", "#");
	}

	/** Removes chunks of ever smaller size while the sequence still fails, within the time allowed. */
	private List<O> shrink(List<O> operations, AssertionError original) throws Exception {
		String signature = signature(original);
		long deadline = System.currentTimeMillis() + shrinkMillis;
		List<O> current = operations;
		for (int chunk = Math.max(1, current.size() / 2); chunk >= 1; chunk /= 2) {
			boolean removed = true;
			while (removed) {
				removed = false;
				for (int from = kept; from + chunk <= current.size(); from += chunk) {
					if (System.currentTimeMillis() > deadline) {
						return current;
					}
					List<O> candidate = new ArrayList<>(current.subList(0, from));
					candidate.addAll(current.subList(from + chunk, current.size()));
					if (stillFails(candidate, signature)) {
						current = candidate;
						removed = true;
						break;
					}
				}
			}
		}
		return current;
	}

	private boolean stillFails(List<O> candidate, String signature) {
		for (int attempt = 0; attempt < 2; attempt++) {
			try {
				AssertionError failure = failure(candidate);
				if (failure != null && signature(failure).equals(signature)) {
					return true;
				}
			}
			catch (Exception ex) {
				// Not the same failure: a candidate that cannot run as a sequence is not kept.
				return false;
			}
		}
		return false;
	}

}
