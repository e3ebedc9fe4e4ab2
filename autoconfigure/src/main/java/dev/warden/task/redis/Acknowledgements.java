package dev.warden.task.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * One consumer's finished deliveries waiting to be acknowledged, as id, claim token pairs. They go
 * with the consumer's next claim when one comes soon, otherwise in a call of their own; while such
 * a call is under way, those that finish meanwhile wait for its answer and then go together.
 * <p>
 * Not thread-safe: guarded by its consumer's monitor.
 */
final class Acknowledgements {

	private final List<String> pending = new ArrayList<>();

	// Whether a call of their own is under way.
	private boolean sending;

	void add(String id, String token) {
		pending.add(id);
		pending.add(token);
	}

	/** All pending acknowledgements, for a claim to carry. */
	List<String> takeAll() {
		if (pending.isEmpty()) {
			return List.of();
		}
		List<String> batch = new ArrayList<>(pending);
		pending.clear();
		return batch;
	}

	/**
	 * The acknowledgements to send in a call of their own now: none when such a call is under way
	 * (its answer sends the rest) or a claim will carry them.
	 * @param claimSoon whether a claim is under way or comes soon
	 */
	List<String> takeToSendAlone(boolean claimSoon) {
		if (pending.isEmpty() || sending || claimSoon) {
			return List.of();
		}
		sending = true;
		return takeAll();
	}

	/** The call of their own was answered. */
	void sent() {
		sending = false;
	}

}
