package dev.warden.task.redis;

/**
 * The Redis keys of one queue, all in the hash slot of {@code {name}}, in the orders the scripts
 * take them.
 */
final class QueueKeys {

	final String due;

	final String tasks;

	final String inflight;

	final String attempts;

	final String claims;

	final String errors;

	final String dead;

	final String channel;

	/** schedule, claim (without dead), cancel: due, tasks, inflight, attempts, claims, errors. */
	final String[] all;

	/** claim and fail: {@link #all} then dead. */
	final String[] allAndDead;

	/** ack: inflight, tasks, attempts, claims, errors. */
	final String[] ack;

	QueueKeys(String prefix, String name) {
		if (name == null || name.isBlank() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("A queue name must not be blank nor contain '{' or '}': " + name);
		}
		String base = prefix + "{" + name + "}:";
		this.due = base + "due";
		this.tasks = base + "tasks";
		this.inflight = base + "inflight";
		this.attempts = base + "attempts";
		this.claims = base + "claims";
		this.errors = base + "errors";
		this.dead = base + "dead";
		this.channel = base + "wake";
		this.all = new String[] { due, tasks, inflight, attempts, claims, errors };
		this.allAndDead = new String[] { due, tasks, inflight, attempts, claims, errors, dead };
		this.ack = new String[] { inflight, tasks, attempts, claims, errors };
	}

}
