package dev.warden.lock.annotation;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The fencing tokens of the locks held by the {@link DistributedLock} method running on the
 * current thread, when its annotation asks for them with {@code fencingToken = true} (plain return
 * types; not {@code CompletionStage}, {@code Mono} or {@code Flux} methods, whose bodies may run
 * elsewhere). A nested call that re-enters a lock its caller holds sees the caller's token.
 *
 * <pre>{@code
 * @DistributedLock(key = "#accountId", fencingToken = true)
 * public void credit(long accountId, long cents) {
 *     long fence = LockContext.currentToken().orElseThrow();
 *     jdbc.update("update accounts set balance = balance + ?, fence = ? where id = ? and fence < ?",
 *             cents, fence, accountId, fence);
 * }
 * }</pre>
 */
public final class LockContext {

	// Per thread by nature: it describes the annotated call the thread is in.
	private static final ThreadLocal<Deque<Map<String, Long>>> CALLS = ThreadLocal.withInitial(ArrayDeque::new);

	private LockContext() {
	}

	/**
	 * The fencing token of the lock held by the innermost annotated call; empty outside one, when
	 * its annotation does not ask for tokens, or when that call holds several locks (see
	 * {@link #currentTokens()}).
	 * @return the token, or empty
	 */
	public static OptionalLong currentToken() {
		Map<String, Long> tokens = CALLS.get().peek();
		if (tokens == null || tokens.size() != 1) {
			return OptionalLong.empty();
		}
		return OptionalLong.of(tokens.values().iterator().next());
	}

	/** {@return every lock name of the innermost annotated call, with its fencing token; empty outside one} */
	public static Map<String, Long> currentTokens() {
		Map<String, Long> tokens = CALLS.get().peek();
		return (tokens != null) ? tokens : Map.of();
	}

	/**
	 * Makes {@code tokens} current until the returned scope is closed. For the interceptor.
	 * @param tokens the call's lock names and tokens
	 * @return the scope to close when the call ends
	 */
	public static Scope open(Map<String, Long> tokens) {
		Deque<Map<String, Long>> calls = CALLS.get();
		calls.push(Map.copyOf(tokens));
		return () -> {
			calls.pop();
			if (calls.isEmpty()) {
				CALLS.remove();
			}
		};
	}

	/** An open {@link LockContext}; closing it ends it. */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
