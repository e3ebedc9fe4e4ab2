package dev.warden.task.redis;

import dev.warden.WardenNames;

/**
 * The Redis keys of one queue, all in the hash slot of {@code {name}}, in the orders the scripts
 * take them.
 */
final class QueueKeys {

	final String due;

	final String tasks;

	final String inflight;

	/**
	 * a:&lt;id&gt; deliveries so far, c:&lt;id&gt; the claim token under way, e:&lt;id&gt; the last error, and the
	 * other fields of task-batch.lua's metaFields.
	 */
	final String meta;

	final String dead;

	/** The dead letters by failure time: a zset of task ids scored by failedAt, in ms. */
	final String deadAt;

	final String channel;

	/** Task limits: the running tasks' slots, by key (task-limits.lua). */
	final String slots;

	/** Task limits: the deferred tasks, by key and due time. */
	final String parked;

	/** Task limits: when to look at a key with deferred tasks again. */
	final String wakes;

	/** Task limits: when each key's rate allows a full burst again. */
	final String rates;

	/** schedule, cancel: due, tasks, inflight, meta. */
	final String[] all;

	/** claim and fail: {@link #all} then dead and deadAt. */
	final String[] allAndDead;

	/** page and purge of dead letters: dead, deadAt. */
	final String[] deadLetters;

	/** requeue of dead letters by failure time: dead, deadAt, due, tasks, meta. */
	final String[] deadLettersRequeue;

	/** requeue of one dead letter: dead, due, tasks, deadAt, meta. */
	final String[] deadLetterRequeue;

	/** one task as an operator sees it: due, tasks, meta, dead. */
	final String[] oneTask;

	/** extend: inflight, meta. */
	final String[] inflightAndMeta;

	/** claim and fail with task limits: {@link #allAndDead} then slots, parked and wakes. */
	final String[] allAndDeadLimited;

	/** admit: due, inflight, meta, slots, rates, parked, wakes. */
	final String[] admit;

	/** start: meta. */
	final String[] metaOnly;

	/** hand back: due, inflight, meta. */
	final String[] dueInflightAndMeta;

	QueueKeys(String prefix, String name) {
		if (name == null || name.isBlank() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("A queue name must not be blank nor contain '{' or '}': "
					+ ((name != null) ? WardenNames.shown(name) : null));
		}
		WardenNames.requireSafe(name, "queue name");
		String base = prefix + "{" + name + "}:";
		this.due = base + "due";
		this.tasks = base + "tasks";
		this.inflight = base + "inflight";
		this.meta = base + "meta";
		this.dead = base + "dead";
		this.deadAt = base + "dead-at";
		this.channel = base + "wake";
		this.slots = base + "limit-slots";
		this.parked = base + "limit-parked";
		this.wakes = base + "limit-wakes";
		this.rates = base + "limit-rates";
		this.allAndDeadLimited = new String[] { due, tasks, inflight, meta, dead, deadAt, slots, parked, wakes };
		this.admit = new String[] { due, inflight, meta, slots, rates, parked, wakes };
		this.all = new String[] { due, tasks, inflight, meta };
		this.allAndDead = new String[] { due, tasks, inflight, meta, dead, deadAt };
		this.deadLetters = new String[] { dead, deadAt };
		this.deadLettersRequeue = new String[] { dead, deadAt, due, tasks, meta };
		this.deadLetterRequeue = new String[] { dead, due, tasks, deadAt, meta };
		this.oneTask = new String[] { due, tasks, meta, dead };
		this.inflightAndMeta = new String[] { inflight, meta };
		this.dueInflightAndMeta = new String[] { due, inflight, meta };
		this.metaOnly = new String[] { meta };
	}

}
