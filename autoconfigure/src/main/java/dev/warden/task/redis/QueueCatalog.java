package dev.warden.task.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import dev.warden.redis.KeyScan;
import dev.warden.redis.RedisEngine;
import dev.warden.task.QueueStats;
import io.lettuce.core.ScriptOutputType;

/**
 * What Redis holds across queues, whichever clients use them: their names, and their counts. Only
 * the queues of the engine's {@linkplain RedisEngine#namespace() namespace} are seen: an application
 * in another namespace on the same Redis is never listed nor counted.
 */
public final class QueueCatalog {

	private QueueCatalog() {
	}

	/**
	 * The counts of several queues: the script calls go out together, one per queue, and their
	 * replies are read after, so that many queues cost about one round trip.
	 * @param engine the client's engine
	 * @param names the queues
	 * @return their counts, in the order of {@code names}
	 */
	public static List<QueueStats> stats(RedisEngine engine, Collection<String> names) {
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(names.size());
		for (String queue : names) {
			QueueKeys queueKeys = new QueueKeys(engine.namespace().taskPrefix(), queue);
			replies.add(engine.eval(TaskScripts.STATS, ScriptOutputType.MULTI,
					new String[] { queueKeys.due, queueKeys.inflight, queueKeys.dead, queueKeys.wakes }));
		}
		List<QueueStats> stats = new ArrayList<>(names.size());
		int i = 0;
		for (String queue : names) {
			List<Long> counts = engine.await(replies.get(i++), "counts of queue '" + queue + "'");
			long next = counts.get(3);
			stats.add(new QueueStats(queue, counts.get(0), counts.get(1), counts.get(2),
					(next >= 0) ? Instant.ofEpochMilli(next) : null, counts.get(4)));
		}
		return stats;
	}

	/**
	 * The names of the queues that have keys in Redis, whichever clients use them, found with
	 * {@code SCAN} (on every master of a cluster) over the queues' key pattern in the engine's
	 * namespace ({@code <namespace>:task:{*}:*}).
	 * @param engine the client's engine
	 * @param max how many names to return at most
	 * @return the names, sorted
	 */
	public static SortedSet<String> queueNames(RedisEngine engine, int max) {
		SortedSet<String> names = new TreeSet<>();
		String prefix = engine.namespace().taskPrefix();
		KeyScan.scan(engine, KeyScan.escape(prefix) + "{*}:*", "scan for queues", key -> {
			int close = key.indexOf("}:", prefix.length());
			if (key.startsWith(prefix) && close > prefix.length() + 1) {
				names.add(key.substring(prefix.length() + 1, close));
			}
			return names.size() < max;
		});
		return names;
	}


}
